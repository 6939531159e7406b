import { runPolicyCommand } from './commands.js';

/**
 * `node dist/cli/policy.js check|explain|test …` in a built image; the same as
 * `adk-slack-approvals policy …`. Exit 0: as expected; 1: the file or a case is wrong; 2: usage.
 */
process.exitCode = await runPolicyCommand(process.argv.slice(2));
