import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { alertRoutes } from '../src/api/alert-routes.js';
import { apiRoutes } from '../src/api/routes.js';
import { createLog } from '../src/log.js';

/** docs/openapi.yaml describes the API the app serves: every route, and no other. */
const openapi = z.object({
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});

const document = openapi.parse(
  parse(await readFile(new URL('../docs/openapi.yaml', import.meta.url), 'utf8')),
);

describe('docs/openapi.yaml', () => {
  it('lists every path and method the app routes, and nothing else', () => {
    const alerts = alertRoutes({
      keys: [],
      intake: () => {
        throw new Error('not called');
      },
      clock: () => 0,
      log: createLog('error'),
    });
    const routes = [
      ...apiRoutes({
        keys: [],
        pauses: () => {
          throw new Error('not called');
        },
        store: () => {
          throw new Error('not called');
        },
        grants: () => {
          throw new Error('not called');
        },
        runs: () => {
          throw new Error('not called');
        },
        log: createLog('error'),
      }),
      ...alerts,
    ].flatMap((route) =>
      [route.method].flat().map((method) => `${method} ${route.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => key !== 'parameters')
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.sort());
  });
});
