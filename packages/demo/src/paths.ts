import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot, runningFromDist } from './package-root.js';

/** Where the demo's files are, found from the package root so `src/` and `dist/` agree. */

/** The demo apps under `src/agents/`; `npm start` serves them when no ADK_BASE_URL is set. */
export const DEMO_APPS = ['ops', 'payments'] as const;

/** What `/agent <prompt>` runs in the demo when the prompt names no app. */
export const DEMO_DEFAULT_APP = 'ops';

/**
 * Built, this package serves the agents `tsc` compiled next to it (`dist/agents`), which the
 * server imports without bundling; run from source (tests) it serves `src/agents`.
 */
export function demoAgentsDir(): string {
  return join(packageRoot(), compiled() ? 'dist' : 'src', 'agents');
}

export interface DemoAgents {
  agentsDir: string;
  expectApps: readonly string[];
  /**
   * false: the agents are JavaScript already (built), or TypeScript that tsx compiles as the
   * server imports them (run from source); true (no tsx installed) has esbuild bundle them.
   */
  bundle: boolean;
  /** `['tsx']` when run from source with tsx installed (`npm start`, the tests). */
  nodeImports?: readonly string[];
}

/** The demo agents as `startLocalAdkServer` options: `startLocalAdkServer({ ...demoAgents() })`. */
export function demoAgents(): DemoAgents {
  const agents = { agentsDir: demoAgentsDir(), expectApps: DEMO_APPS };
  if (compiled()) return { ...agents, bundle: false };
  return tsxInstalled()
    ? { ...agents, bundle: false, nodeImports: ['tsx'] }
    : { ...agents, bundle: true };
}

function tsxInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('tsx');
    return true;
  } catch {
    return false;
  }
}

/** The demo approver policy; `tsc` does not copy YAML, so it is always read from `src/`. */
export function demoPolicyFile(): string {
  return join(packageRoot(), 'src', 'policy.yml');
}

function compiled(): boolean {
  return runningFromDist(import.meta.url);
}
