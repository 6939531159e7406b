import { defaultServerConditions, type Plugin } from 'vite';

/**
 * Tests import the workspace packages (`packages/*`) from their TypeScript sources, through the
 * `source` condition of their `exports`, so nothing needs building first. Vite applies the
 * top-level `resolve.conditions` to the browser only; this adds the condition to every server
 * environment, including the one vitest loads global setup files in. It leaves out Vite's
 * `module` condition, which Node does not know: a dependency loaded by Node could otherwise resolve
 * to a bundler-only build (@opentelemetry/api's ESM build, under prom-client and the ADK Runner,
 * whose extensionless imports Node refuses).
 */
export function workspaceSources(): Plugin {
  return {
    name: 'workspace-sources',
    configEnvironment(_name, config) {
      if (config.consumer === 'client') return;
      const conditions = defaultServerConditions.filter((condition) => condition !== 'module');
      return { resolve: { conditions: ['source', ...conditions] } };
    },
  };
}
