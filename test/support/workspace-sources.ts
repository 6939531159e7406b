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
      return { resolve: { conditions: ['source', ...defaultServerConditions] } };
    },
  };
}
