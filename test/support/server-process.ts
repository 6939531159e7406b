import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

export interface ServerProcess {
  /** What the server printed (its last 200 chunks), for a failing test's message. */
  output: string[];
  /** SIGTERM, then resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * A server the tests start as a child process (the Python api_server, Alertmanager), resolved
 * once `readyUrl` answers 2xx; killed and refused with its output when it exits or is not ready
 * within `timeoutMs`.
 */
export async function startServerProcess(options: {
  label: string;
  command: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  readyUrl: string;
  timeoutMs: number;
  pollMs?: number;
}): Promise<ServerProcess> {
  const child = spawn(options.command, options.args, {
    ...(options.env === undefined ? {} : { env: options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString('utf8'));
    if (output.length > 200) output.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${options.label} exited (${child.exitCode}): ${output.join('')}`);
    }
    const ready = await fetch(options.readyUrl).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `${options.label} did not start in ${options.timeoutMs / 1000} s: ${output.join('')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
  }
  return {
    output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A port free now and below the kernel's range of ephemeral ports (Linux: 32768–60999), for a
 * server started long after the port is chosen: `listen(0)`'s come from that range, where any
 * outgoing connection made meanwhile may take it (seen in the docs run: Alertmanager's port held
 * by one, minutes after it was chosen). Walks 20000–31999 from a random start.
 */
export async function portOutsideEphemeralRange(): Promise<number> {
  const low = 20_000;
  const span = 12_000;
  const start = Math.floor(Math.random() * span);
  for (let step = 0; step < 500; step++) {
    const port = low + ((start + step) % span);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${low}–${low + span - 1}`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port for a server process a test starts: outside the ephemeral range, like the docs run's
 * (`portOutsideEphemeralRange`), so that no outgoing connection takes it before the server binds.
 */
export function freePort(): Promise<number> {
  return portOutsideEphemeralRange();
}
