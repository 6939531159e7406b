import { fileURLToPath } from 'node:url';
import { type LocalAdkServer, startLocalAdkServer } from '@adk-slack-approvals/demo';

/** The test agents (scripted model, no network) on the demo package's launcher. */

export const TEST_AGENTS_DIR = fileURLToPath(new URL('../agents', import.meta.url));
/** The apps under `test/agents/`; startup fails if one of them did not load. */
export const TEST_APPS = [
  'payments',
  'time_off',
  'parallel_ops',
  'two_stage',
  'calendar',
  'ask_input',
  'budget_flow',
  'staged_ops',
  'pay_flow',
] as const;
/** esbuild bundles each agent, which is slow on a busy 2-core machine. */
export const TEST_STARTUP_TIMEOUT_MS = 180_000;

export function startTestAdkServer(): Promise<LocalAdkServer> {
  return startLocalAdkServer({
    agentsDir: TEST_AGENTS_DIR,
    expectApps: TEST_APPS,
    startupTimeoutMs: TEST_STARTUP_TIMEOUT_MS,
  });
}
