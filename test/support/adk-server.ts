import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Starts the real `adk api_server` (from `@google/adk-devtools`) on a free loopback port with
 * in-memory sessions, and stops it again. The server bundles every agent with esbuild when
 * `/list-apps` is first called, which takes seconds (tens of seconds on a loaded machine), so
 * readiness is "`/list-apps` lists the expected apps", with a generous limit.
 */

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TEST_AGENTS_DIR = join(REPO_ROOT, 'test', 'agents');
/** The apps under `test/agents/`; startup fails if one of them did not load. */
export const TEST_APPS = ['payments', 'time_off'] as const;

/**
 * Loaded into the server process before the CLI: when the test process dies, however it dies,
 * the server's stdin pipe closes, and the server removes its temporary directory and kills its
 * own process group (it leads one), so nothing of it outlives the tests.
 */
const DIE_WITH_PARENT = `
import { rmSync } from 'node:fs';
process.stdin.on('close', () => {
  const own = process.env.ADK_TEST_SERVER_TMPDIR;
  if (own) try { rmSync(own, { recursive: true, force: true }); } catch {}
  try { process.kill(-process.pid, 'SIGKILL'); } catch {}
  process.exit(1);
});
process.stdin.resume();
`;

export interface AdkServer {
  /** e.g. `http://127.0.0.1:41234` */
  baseUrl: string;
  /** From spawn to `/list-apps` listing every expected app. */
  startupMs: number;
  /** The last part of the server's stdout and stderr. */
  output(): string;
  /** Kills the server's process group and removes its temporary files; safe to call twice. */
  stop(): Promise<void>;
}

export interface StartAdkServerOptions {
  agentsDir?: string;
  expectApps?: readonly string[];
  /** Default 180 s: esbuild bundles each agent, which is slow on a busy 2-core machine. */
  startupTimeoutMs?: number;
}

export async function startAdkServer(options: StartAdkServerOptions = {}): Promise<AdkServer> {
  // The free port is found before the server binds it; another process may take it meanwhile.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      const portTaken = error instanceof Error && error.message.includes('EADDRINUSE');
      if (!portTaken || attempt === 3) throw error;
    }
  }
}

async function startOnce(options: StartAdkServerOptions): Promise<AdkServer> {
  const agentsDir = options.agentsDir ?? TEST_AGENTS_DIR;
  const expectApps = options.expectApps ?? TEST_APPS;
  const startupTimeoutMs = options.startupTimeoutMs ?? 180_000;
  const cli = await realpath(join(REPO_ROOT, 'node_modules', '.bin', 'adk'));
  // The server's agent bundles go here, so nothing is left in the system temp dir.
  const tempDir = await mkdtemp(join(tmpdir(), 'adk-api-server-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;

  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(DIE_WITH_PARENT)}`,
      cli,
      'api_server',
      agentsDir,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--session_service_uri',
      'memory://',
      '--log_level',
      'warn',
    ],
    {
      cwd: REPO_ROOT,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        TMPDIR: tempDir,
        ADK_TEST_SERVER_TMPDIR: tempDir,
        NO_COLOR: '1',
        FORCE_COLOR: '0',
      },
    },
  );
  const output = new OutputTail(64 * 1024);
  child.stdout?.on('data', (chunk: Buffer) => output.add(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.add(chunk));
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
    child.once('error', (error) => resolve(`spawn error: ${error.message}`));
  });

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      await killGroup(child, exited);
      await rm(tempDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  try {
    await waitUntilReady(baseUrl, expectApps, exited, startupTimeoutMs);
  } catch (error) {
    await stop();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `adk api_server did not start: ${reason}\n--- server output ---\n${output.text()}`,
    );
  }
  return {
    baseUrl,
    startupMs: Math.round(performance.now() - started),
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
  void exited.then((how) => {
    exitedWith = how;
  });
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (exitedWith !== undefined) throw new Error(`the server exited (${exitedWith})`);
    try {
      // The first answer waits for every agent to be bundled; a retry meanwhile would bundle them
      // all again in parallel, so this one call may take the whole remaining time.
      const response = await fetch(`${baseUrl}/list-apps`, {
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
      });
      const apps: unknown = await response.json();
      if (response.ok && Array.isArray(apps)) {
        const missing = expectApps.filter((app) => !apps.includes(app));
        if (missing.length === 0) return;
        // The loader skips an agent that fails to load and logs why: that is a startup failure.
        throw new StartupFailure(`apps missing from /list-apps: ${missing.join(', ')}`);
      }
      last = `/list-apps answered HTTP ${response.status}`;
    } catch (error) {
      if (error instanceof StartupFailure) throw error;
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`not ready after ${timeoutMs} ms (last: ${last})`);
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
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port assigned'));
      });
    });
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: an ANSI escape starts with ESC.
const ANSI_COLOUR = /\x1b\[[0-9;]*m/g;

class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 1) {
      const first = this.chunks.shift();
      this.size -= first?.length ?? 0;
    }
  }

  /** Without terminal colour codes, which the server prints whatever NO_COLOR says. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8').replace(ANSI_COLOUR, '');
  }
}
