import { join } from 'node:path';
import { packageRoot, runningFromDist } from '../package-root.js';

/** The demo apps under `src/demo/agents/`; the app starts a server for them without ADK_BASE_URL. */
export const DEMO_APPS = ['ops', 'payments'] as const;

export interface DemoAgents {
  /** `<package root>/dist/demo/agents` for the built app, else `<package root>/src/demo/agents`. */
  agentsDir: string;
  expectApps: readonly string[];
  /** false for the built app: the server imports `tsc`'s JavaScript and skips esbuild. */
  bundle: boolean;
}

/**
 * Where the demo agents are, ready to spread into `startLocalAdkServer` options. The built app
 * serves the compiled agents next to it, which starts seconds faster than bundling the sources;
 * run from source (tests, tsx), it serves the sources.
 */
export function demoAgents(): DemoAgents {
  const compiled = runningFromDist(import.meta.url);
  return {
    agentsDir: join(packageRoot(), compiled ? 'dist' : 'src', 'demo', 'agents'),
    expectApps: DEMO_APPS,
    bundle: !compiled,
  };
}
