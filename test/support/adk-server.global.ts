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
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [started, compiled] = await Promise.allSettled([
    startTestAdkServer(),
    compileChildProcesses(),
  ]);
  if (started.status === 'rejected') throw started.reason;
  const server = started.value;
  if (compiled.status === 'rejected') {
    await server.stop();
    throw compiled.reason;
  }
  process.stderr.write(`adk api_server ready at ${server.baseUrl} in ${server.startupMs} ms\n`);
  project.provide('adkBaseUrl', server.baseUrl);
  return () => server.stop();
}
