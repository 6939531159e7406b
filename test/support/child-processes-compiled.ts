import { compileProcesses } from '../../bench/support/child-processes.js';

/**
 * The app's child processes (bench/processes/, what `child-app-world.ts` starts and kills),
 * compiled once for the whole run by the integration tests' global setup (adk-server.global.ts,
 * beside the ADK server's start, which takes longer), before any test file starts. Compiled by
 * each test file instead, one file's compiler rewrote them while another file's child was loading
 * them, and that child failed on a half-written module.
 */
export async function compileChildProcesses(): Promise<void> {
  const started = Date.now();
  await compileProcesses();
  process.stderr.write(`child processes compiled in ${Date.now() - started} ms\n`);
}
