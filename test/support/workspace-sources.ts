import { defaultServerConditions, type Plugin } from 'vite';

/**
 * Tests import the workspace packages (`packages/*`) from their TypeScript sources, through the
 * `source` condition of their `exports`, so nothing needs building first. Vite applies the
 * top-level `resolve.conditions` to the browser only; this adds the condition to every server
 * environment, including the one vitest loads global setup files in.
 */
export function workspaceSources(): Plugin {
  return {
    name: 'workspace-sources',
    configEnvironment(_name, config) {
      if (config.consumer === 'client') return;
      // Not vite's `module` condition: dependencies are loaded by Node itself, and some (e.g.
      // @opentelemetry/api, which prom-client imports) point `module` at a build only bundlers read.
      const conditions = defaultServerConditions.filter((condition) => condition !== 'module');
      return { resolve: { conditions: ['source', ...conditions] } };
    },
  };
}
