import { type ChildProcess, execFile, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { z } from 'zod';
import {
  cpuSchema,
  type Profile,
  profiledSchema,
  readySchema,
  type ToChild,
} from '../processes/messages.js';

/**
 * The benchmark's child processes (`bench/processes/*.ts`): compiled once per run, started with
 * an IPC channel, and always stopped, whatever happens to the run.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMPILED = fileURLToPath(new URL('../../dist/bench/bench/processes/', import.meta.url));
const OUTPUT_LINES_KEPT = 40;
const PROBLEM_LINES_KEPT = 5;
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 15_000;

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * The workspace packages the child processes import, in build order. Node runs their `dist/`
 * (the `source` condition is for vitest and tsc only), so they are compiled first.
 */
const PACKAGES = ['packages/block-kit', 'packages/adk-approvals', 'packages/slack-sandbox'];

/**
 * Compiles the packages the child processes need, then the processes and what they import,
 * into `dist/bench/`. Without type checks: `npm run typecheck` does those; this only has to be
 * quick.
 */
export async function compileProcesses(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const configs = [
    ...PACKAGES.map((dir) => `${dir}/tsconfig.build.json`),
    'bench/tsconfig.processes.json',
  ];
  for (const config of configs) {
    try {
      await promisify(execFile)(process.execPath, [tsc, '-p', config, '--noCheck'], { cwd: ROOT });
    } catch (error) {
      // tsc reports on stdout, which the rejection carries but its message leaves out.
      const stdout = error instanceof Error && 'stdout' in error ? String(error.stdout) : '';
      throw new Error(`compiling ${config} failed:\n${stdout}`, { cause: error });
    }
  }
}

export type ProcessName = 'app' | 'bare-bolt' | 'clicker';

export interface Child {
  readonly label: string;
  /** The port it listens on (0 for the clicker). */
  readonly port: number;
  send(message: ToChild): void;
  /** CPU time (user + system) the child has used so far, in ms. */
  cpuMs(): Promise<number>;
  /** Starts a CPU profile of the child, or stops it and has it written to `file`. */
  profile(request: Profile): Promise<void>;
  /** The next message the child sends that `schema` accepts. */
  receive<T>(schema: z.ZodType<T>, timeoutMs: number): Promise<T>;
  /** The child's last lines of output, for an error message. */
  output(): string;
  /** How many lines it logged at WARN or ERROR, and the first few of them. */
  problems(): { count: number; first: readonly string[] };
  /** SIGTERM, then SIGKILL if it has not exited in time. */
  stop(): Promise<void>;
  /** SIGKILL at once (kill -9: a crash, nothing drained); resolves once it has exited. */
  kill(): Promise<void>;
}

export async function startChild(
  name: ProcessName,
  label: string,
  env: Record<string, string>,
): Promise<Child> {
  installExitHook();
  const child = fork(`${COMPILED}${name}.js`, [], {
    cwd: ROOT,
    // Not vitest's flags (`--conditions development` would load packages' development builds).
    execArgv: [],
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));

  const lines: string[] = [];
  const problems: { count: number; first: string[] } = { count: 0, first: [] };
  const keep = (chunk: Buffer) => {
    const fresh = chunk.toString('utf8').split('\n').filter(Boolean);
    for (const line of fresh) {
      if (!/ (WARN|ERROR) /.test(line)) continue;
      problems.count += 1;
      if (problems.first.length < PROBLEM_LINES_KEPT) problems.first.push(line);
    }
    lines.push(...fresh);
    if (lines.length > OUTPUT_LINES_KEPT) lines.splice(0, lines.length - OUTPUT_LINES_KEPT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const output = () => lines.join('\n');

  const receive = <T>(schema: z.ZodType<T>, timeoutMs: number): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      const onMessage = (message: unknown) => {
        const parsed = schema.safeParse(message);
        if (!parsed.success) return;
        done();
        resolve(parsed.data);
      };
      const onExit = (code: number | null, signal: string | null) => {
        done();
        reject(new Error(`${label} exited (${signal ?? code}):\n${output()}`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${label} said nothing for ${timeoutMs} ms:\n${output()}`));
      }, timeoutMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
    });

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  };

  try {
    const ready = await receive(readySchema, START_TIMEOUT_MS);
    return {
      label,
      port: ready.port,
      send: (message) => child.send(message),
      async cpuMs() {
        const answer = receive(cpuSchema, START_TIMEOUT_MS);
        child.send({ kind: 'cpu?' });
        return (await answer).micros / 1000;
      },
      async profile(request) {
        const answer = receive(profiledSchema, START_TIMEOUT_MS);
        child.send(request);
        await answer;
      },
      receive,
      output,
      problems: () => problems,
      stop,
      kill,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** If the benchmark itself dies, it takes its children with it. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}
