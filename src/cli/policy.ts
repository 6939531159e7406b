import { runPolicyCli } from './policy-cli.js';

/**
 * `npm run policy -- check|explain|test …` (or `node dist/cli/policy.js …` in a built image):
 * the policy file as code. Exit 0: as expected; 1: the file or a case is wrong; 2: usage.
 */
const code = await runPolicyCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
process.exitCode = code;
