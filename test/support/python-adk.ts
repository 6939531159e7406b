import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort, startServerProcess } from './server-process.js';

export { freePort };

/**
 * The Python environment with a real google-adk that scripts/python-adk-env.sh builds:
 * `PYTHON_ADK_ENV`, else `../shared/python-adk` beside this checkout (where .ci/run looks).
 * Undefined when there is none; the tests that need it are skipped and say why.
 */
export const PYTHON_ADK: string | undefined = (() => {
  const path =
    process.env.PYTHON_ADK_ENV ??
    fileURLToPath(new URL('../../../shared/python-adk', import.meta.url));
  return existsSync(`${path}/bin/python`) ? path : undefined;
})();

export const PYTHON_ADK_SKIPPED =
  'no Python environment with a real google-adk (build one with scripts/python-adk-env.sh, or set PYTHON_ADK_ENV)';

export const PYTHON_AGENTS_DIR = fileURLToPath(new URL('../python-adk/agents', import.meta.url));
const CLIENT_DIR = fileURLToPath(new URL('../../clients/python', import.meta.url));

export interface PythonAdkServer {
  url: string;
  /** What the server printed, for a failing test's message. */
  output: string[];
  stop(): Promise<void>;
}

/**
 * A real Python `adk api_server` serving test/python-adk/agents (scripted models, no network)
 * from the google-adk environment; `env` adds variables (the plugin's configuration), and
 * `extraPlugins` its `--extra_plugins`.
 */
export async function startPythonAdkServer({
  env = {},
  extraPlugins = [],
  port: chosen,
}: {
  env?: Record<string, string>;
  extraPlugins?: string[];
  /** Default: a free one. */
  port?: number;
} = {}): Promise<PythonAdkServer> {
  if (PYTHON_ADK === undefined) throw new Error(PYTHON_ADK_SKIPPED);
  const port = chosen ?? (await freePort());
  const args = ['-m', 'google.adk.cli', 'api_server', PYTHON_AGENTS_DIR, '--port', String(port)];
  for (const plugin of extraPlugins) args.push('--extra_plugins', plugin);
  const url = `http://127.0.0.1:${port}`;
  const server = await startServerProcess({
    label: 'the Python api_server',
    command: `${PYTHON_ADK}/bin/python`,
    args,
    env: { ...process.env, ...env, PYTHONPATH: CLIENT_DIR, PYTHONWARNINGS: 'ignore' },
    readyUrl: `${url}/list-apps`,
    timeoutMs: 60_000,
  });
  return { url, ...server };
}

/** How many times `transfer_money` ran in a py_payments session: one `ran:<call id>` key each. */
export function toolRuns(state: Record<string, unknown> | undefined): number {
  return Object.keys(state ?? {}).filter((key) => key.startsWith('ran:')).length;
}
