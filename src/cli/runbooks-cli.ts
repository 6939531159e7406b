import { loadRunbooksFile, RunbooksError } from '../approvals/runbooks/runbooks-file.js';
import type { CliOutput } from './policy-cli.js';

const USAGE = 'usage: runbooks check <runbooks.yml>';

/**
 * `runbooks check <file>`: the runbooks file read as the app reads it at start and on reload.
 * Exit 0: it loads; 1: its problems, one `file:line:col` line each, on stderr; 2: usage.
 */
export async function runRunbooksCli(argv: readonly string[], io: CliOutput): Promise<number> {
  const [command, file, ...extra] = argv;
  if (command !== 'check' || file === undefined || extra.length > 0) {
    if (command !== undefined && command !== 'check') {
      io.err(`unknown command ${JSON.stringify(command)}`);
    }
    io.err(USAGE);
    return 2;
  }
  try {
    const { runbooks, version } = await loadRunbooksFile(file);
    io.out(`ok: ${file} (${runbooks.length} runbooks, version ${version.slice(0, 12)})`);
    return 0;
  } catch (error) {
    if (!(error instanceof RunbooksError)) throw error;
    for (const problem of error.problems) io.err(problem);
    return 1;
  }
}
