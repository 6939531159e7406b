import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { Log } from './log.js';
import { packageRoot } from './package-root.js';
import { ServerOutput } from './server-output.js';

/**
 * Starts the real `adk api_server` (from `@google/adk-devtools`) on loopback with in-memory
 * sessions, and stops it again. Used by `npm start` when no `ADK_BASE_URL` is configured
 * (serving the demo agents) and by the app's tests (serving the test agents).
 *
 * The server loads its agents when `/list-apps` is first called; with `bundle` it first bundles
 * each one with esbuild, which takes seconds (tens of seconds on a loaded machine). So readiness
 * is "`/list-apps` lists the expected apps", which also warms the agents up for the first run.
 */

export interface LocalAdkServerOptions {
  /** A directory of agents, `<agentsDir>/<app>/agent.{ts,js}`, each exporting `rootAgent`. */
  agentsDir: string;
  /** Apps `/list-apps` must list; the server skips an agent that fails to load, so one missing is a startup failure. */
  expectApps: readonly string[];
  /**
   * Default true: the server bundles each agent with esbuild, which is what TypeScript sources
   * need. false: the agents are JavaScript that Node imports as they are (e.g. `tsc` output under
   * the package, which finds `node_modules`), which saves the bundling time.
   */
  bundle?: boolean;
  /**
   * Modules the server's Node loads before the CLI (`node --import`). `['tsx']` with `bundle:
   * false` serves TypeScript agents as they are, compiled file by file as Node imports them:
   * seconds faster to start than bundling, and the agents share the server's `@google/adk`.
   */
  nodeImports?: readonly string[];
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default: a free port, chosen again if another process takes it first. */
  port?: number;
  /** From spawn to ready. Default 180 s, safe for bundling on a busy 2-core machine. */
  startupTimeoutMs?: number;
  /** Startup and exit at info/error; every line the server prints at debug. */
  log?: Log;
  /** Added to (or, when undefined, removed from) this process's environment for the server. */
  env?: Record<string, string | undefined>;
}

export interface LocalAdkServer {
  /** e.g. `http://127.0.0.1:41234` */
  baseUrl: string;
  /** From spawn to `/list-apps` listing every expected app. */
  startupMs: number;
  /** The server process, which leads its own process group. */
  pid: number;
  /** Settles when the server exits, with how (`code 1`, `signal SIGKILL`). */
  exited: Promise<string>;
  /** The last 64 KiB of the server's stdout and stderr. */
  output(): string;
  /** Kills the server's process group and removes its temporary files; safe to call twice. */
  stop(): Promise<void>;
}

/** The server did not become ready; the message ends with what it printed. */
export class LocalAdkServerError extends Error {
  override readonly name = 'LocalAdkServerError';

  constructor(
    reason: string,
    /** What the server printed before it was stopped. */
    readonly output: string,
  ) {
    super(`adk api_server did not start: ${reason}\n--- server output ---\n${output}`);
  }

  /** The server could not listen: another process holds its port. */
  get portTaken(): boolean {
    return PORT_TAKEN.test(this.output);
  }
}

const DEFAULT_STARTUP_TIMEOUT_MS = 180_000;
const OUTPUT_LIMIT = 64 * 1024;
/** adk-devtools 2.0.0 prints "Port <n> is already in use"; Node's own code is EADDRINUSE. */
const PORT_TAKEN = /EADDRINUSE|is already in use/;

/**
 * Loaded into the server process before the CLI: when this process dies, however it dies, the
 * server's stdin pipe closes, and the server removes its temporary directory and kills its own
 * process group (it leads one), so nothing of it outlives its parent.
 */
const DIE_WITH_PARENT = `
import { rmSync } from 'node:fs';
process.stdin.on('close', () => {
  const own = process.env.ADK_LOCAL_SERVER_TMPDIR;
  if (own) try { rmSync(own, { recursive: true, force: true }); } catch {}
  try { process.kill(-process.pid, 'SIGKILL'); } catch {}
  process.exit(1);
});
process.stdin.resume();
`;

export async function startLocalAdkServer(options: LocalAdkServerOptions): Promise<LocalAdkServer> {
  const root = packageRoot();
  const cli = await adkCliPath(root);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, root, cli);
    } catch (error) {
      // A free port is found before the server binds it; another process may take it meanwhile.
      const portTaken = error instanceof LocalAdkServerError && error.portTaken;
      if (!portTaken || options.port !== undefined || attempt === 3) throw error;
      options.log?.warn('adk api_server port was taken, trying another', { attempt });
    }
  }
}

async function startOnce(
  options: LocalAdkServerOptions,
  root: string,
  cli: string,
): Promise<LocalAdkServer> {
  const log = options.log;
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? (await freePort(host));
  const baseUrl = `http://${urlHost(host)}:${port}`;
  // The server's agent bundles go here, so nothing is left in the system temp dir.
  const tempDir = await mkdtemp(join(tmpdir(), 'adk-api-server-'));
  const bundle = options.bundle ?? true;

  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(DIE_WITH_PARENT)}`,
      ...(options.nodeImports ?? []).flatMap((module) => ['--import', module]),
      cli,
      'api_server',
      options.agentsDir,
      '--host',
      host,
      '--port',
      String(port),
      '--session_service_uri',
      'memory://',
      '--log_level',
      'warn',
      ...(bundle ? [] : ['--compile', 'false', '--bundle', 'false']),
    ],
    {
      cwd: root,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ...options.env,
        TMPDIR: tempDir,
        ADK_LOCAL_SERVER_TMPDIR: tempDir,
        NO_COLOR: '1',
        FORCE_COLOR: '0',
      },
    },
  );
  const output = new ServerOutput(OUTPUT_LIMIT, (line) => log?.debug(line));
  child.stdout?.on('data', (chunk: Buffer) => output.add(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.add(chunk));
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
    child.once('error', (error) => resolve(`spawn error: ${error.message}`));
  });

  let stopping = false;
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopping = true;
    stopped ??= (async () => {
      await killGroup(child, exited);
      await rm(tempDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  log?.info('starting adk api_server', {
    agentsDir: options.agentsDir,
    baseUrl,
    bundle,
    ...(options.nodeImports === undefined ? {} : { imports: options.nodeImports.join(',') }),
  });
  try {
    await waitUntilReady(
      baseUrl,
      options.expectApps,
      exited,
      options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
    );
  } catch (error) {
    await stop();
    const reason = errorMessage(error);
    throw new LocalAdkServerError(reason, output.text());
  }
  const startupMs = Math.round(performance.now() - started);
  const pid = child.pid;
  if (pid === undefined) {
    // Unreachable: a spawn failure ends in `exited`, which fails the wait above.
    await stop();
    throw new LocalAdkServerError('the server has no process id', output.text());
  }
  log?.info('adk api_server ready', { baseUrl, startupMs });
  void exited.then((how) => {
    if (!stopping) log?.error('adk api_server exited', { how, baseUrl });
  });
  return {
    baseUrl,
    startupMs,
    pid,
    exited,
    output: () => output.text(),
    stop,
  };
}

/** A reason to stop waiting: retrying would not help. */
class StartupFailure extends Error {}

async function waitUntilReady(
  baseUrl: string,
  expectApps: readonly string[],
  exited: Promise<string>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitedWith: string | undefined;
  // Whatever else answers on the port (it may not be our server) must not outlive the server.
  const serverGone = new AbortController();
  void exited.then((how) => {
    exitedWith = how;
    serverGone.abort();
  });
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (exitedWith !== undefined) throw new Error(`the server exited (${exitedWith})`);
    try {
      // The first answer waits for every agent to be loaded (bundled); a retry meanwhile would
      // bundle them all again in parallel, so this one call may take the whole remaining time.
      const response = await fetch(`${baseUrl}/list-apps`, {
        signal: AbortSignal.any([
          serverGone.signal,
          AbortSignal.timeout(Math.max(1, deadline - Date.now())),
        ]),
      });
      const apps = z.array(z.string()).safeParse(await response.json());
      if (response.ok && apps.success) {
        const missing = expectApps.filter((app) => !apps.data.includes(app));
        if (missing.length === 0) return;
        throw new StartupFailure(`apps missing from /list-apps: ${missing.join(', ')}`);
      }
      last = `/list-apps answered HTTP ${response.status}`;
    } catch (error) {
      if (error instanceof StartupFailure) throw error;
      last = errorMessage(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`not ready after ${timeoutMs} ms (last: ${last})`);
}

const devtoolsPackageSchema = z.object({ bin: z.object({ adk: z.string() }) });

/**
 * The `adk` CLI's script, from `@google/adk-devtools`'s own `bin` entry. Looked up as Node
 * would, in `node_modules` here or above: npm hoists a workspace's dependencies to the root.
 */
async function adkCliPath(root: string): Promise<string> {
  const dir = devtoolsDirectory(root);
  const manifest = devtoolsPackageSchema.safeParse(
    JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')),
  );
  if (!manifest.success) throw new Error(`no "bin.adk" in ${join(dir, 'package.json')}`);
  return join(dir, manifest.data.bin.adk);
}

function devtoolsDirectory(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', '@google', 'adk-devtools');
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) {
      throw new Error(`@google/adk-devtools is not installed in ${from} or above it (npm install)`);
    }
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function killGroup(child: ChildProcess, exited: Promise<string>): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  signalGroup(pid, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    exited,
    new Promise((resolve) => {
      timer = setTimeout(resolve, 5_000);
    }),
  ]);
  clearTimeout(timer);
  // The group also holds esbuild's service process; make sure nothing of it survives.
  signalGroup(pid, 'SIGKILL');
  await exited;
  // Orphans killed with the group linger until init reaps them; stop() returns once they are gone.
  const reaped = Date.now() + 5_000;
  while (groupExists(pid) && Date.now() < reaped) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function groupExists(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Where to reach a server bound to `host`: a wildcard address is reached over loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port assigned'));
      });
    });
  });
}
