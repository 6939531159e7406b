import type { TestProject } from 'vitest/node';
import { startTestAdkServer } from './adk-server.js';
import { compileChildProcesses } from './child-processes-compiled.js';

/**
 * Vitest global setup: one real `adk api_server` for the whole run, serving `test/agents/`.
 * Test files read its address with `inject('adkBaseUrl')`. The app's child processes are
 * compiled meanwhile (child-processes-compiled.ts).
 */

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the shared `adk api_server`, e.g. `http://127.0.0.1:41234`. */
    adkBaseUrl: string;
    /** Whether the app's child processes were compiled for this run (child-processes-compiled.ts). */
    childProcessesCompiled: boolean;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // `TEST_CHILD_PROCESSES=none`: a run with no crash test (the cluster and Node 24 passes) spares
  // the compile, whose CPU slows the server's start on a 2-core machine.
  const compiling = process.env.TEST_CHILD_PROCESSES !== 'none';
  const [started, compiled] = await Promise.allSettled([
    startTestAdkServer(),
    compiling ? compileChildProcesses() : Promise.resolve(),
  ]);
  if (started.status === 'rejected') throw started.reason;
  const server = started.value;
  if (compiled.status === 'rejected') {
    await server.stop();
    throw compiled.reason;
  }
  process.stderr.write(`adk api_server ready at ${server.baseUrl} in ${server.startupMs} ms\n`);
  project.provide('adkBaseUrl', server.baseUrl);
  project.provide('childProcessesCompiled', compiling);
  return () => server.stop();
}
