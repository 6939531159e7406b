import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CHANNELS, PEOPLE } from '@adk-slack-approvals/slack-sandbox';
import { z } from 'zod';
import { runStatusText } from '../../src/slack/render/run-status-line.js';
import { REPO_ROOT } from './doc-blocks.js';

/**
 * A reader of the docs, on this machine: a terminal at the repository's root, a home folder of
 * its own, and the Slack sandbox in a browser. What differs from a reader's machine, and why:
 * - ports: the docs' 3000 (the app), 3001 (the sandbox), 8000 (an adk api_server) and 9093
 *   (Alertmanager) are mapped to free ones, in the blocks' text and through `PORT` and
 *   `SANDBOX_PORT`, so that the test runs beside a developer's own `npm start`;
 * - Gemini: `GEMINI_API_KEY` is a stand-in's and `GOOGLE_GEMINI_BASE_URL` points at
 *   test/support/fake-gemini.ts (no network here);
 * - installs: what the docs install with npm or pip is already there (`node_modules` of this
 *   checkout, the google-adk environment of PYTHON_ADK_ENV with clients/python on PYTHONPATH).
 */

export interface Ports {
  app: number;
  sandbox: number;
  adk: number;
  alertmanager: number;
}

export function mapPorts(text: string, ports: Ports): string {
  const to: Record<string, number> = {
    '3000': ports.app,
    '3001': ports.sandbox,
    '8000': ports.adk,
    '9093': ports.alertmanager,
  };
  return text
    .replace(
      /\b(127\.0\.0\.1|localhost):(3000|3001|8000|9093)\b/g,
      (_, host, port) => `${host}:${to[port]}`,
    )
    .replace(/--port (3000|3001|8000)\b/g, (_, port) => `--port ${to[port]}`);
}

/** `~/x` in the reader's home. */
export function inHome(home: string, path: string): string {
  return join(home, path.replace(/^~\//, ''));
}

export async function save(home: string, path: string, text: string): Promise<void> {
  const file = inHome(home, path);
  await mkdir(dirname(file), { recursive: true });
  // The first line names the file: it stays, as a reader who pastes the block keeps it.
  await writeFile(file, text);
}

export interface Ran {
  code: number | null;
  output: string;
}

const OUTPUT_KEPT = 12_000;

/** Runs a shell block as a reader pastes it, to its end. */
export function runShell(text: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Ran> {
  const shell = spawnShell(text, env);
  return new Promise((resolve) => {
    let note = '';
    const timer = setTimeout(() => {
      note = `\n[docs test: still running after ${timeoutMs / 1000} s, stopped]`;
      killGroup(shell.child, 'SIGKILL');
    }, timeoutMs);
    shell.child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: shell.output() + note });
    });
  });
}

export interface Background {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a block that keeps running (a second terminal), and waits until `readyUrl` answers. */
export async function startBackground(
  text: string,
  env: NodeJS.ProcessEnv,
  readyUrl: string,
  timeoutMs: number,
): Promise<Background> {
  const { child, output } = spawnShell(text, env);
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const background: Background = {
    child,
    output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(child, 'SIGTERM');
      const killed = setTimeout(() => killGroup(child, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(killed);
    },
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`it exited before ${readyUrl} answered:\n${output()}`);
    }
    const ready = await fetch(readyUrl, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return background;
    if (Date.now() > deadline) {
      await background.stop();
      throw new Error(`${readyUrl} did not answer within ${timeoutMs / 1000} s:\n${output()}`);
    }
    await sleep(500);
  }
}

/** bash running `text` at the repository's root, and the last of what it printed. */
function spawnShell(
  text: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string } {
  // Its own process group, so that stopping it stops what it started (npm → node → servers).
  const child = spawn('bash', ['-euo', 'pipefail', '-c', text], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Gone already.
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Files in the checkout that git does not ignore and does not track: what a block left there. */
export function untrackedFiles(): string[] | undefined {
  try {
    return execFileSync('git', ['ls-files', '--others', '--exclude-standard'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((line) => line !== '');
  } catch {
    return undefined;
  }
}

const blockSchema = z.looseObject({
  type: z.string(),
  block_id: z.string().optional(),
  elements: z
    .array(z.looseObject({ action_id: z.string().optional(), value: z.string().optional() }))
    .optional(),
});
const messageSchema = z.looseObject({
  ts: z.string(),
  thread_ts: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  blocks: z.array(blockSchema).optional(),
});
type SandboxMessage = z.infer<typeof messageSchema>;
const stateSchema = z.object({
  conversations: z.record(
    z.string(),
    z.object({
      messages: z.array(messageSchema),
      threads: z.record(z.string(), z.array(messageSchema)),
    }),
  ),
});

/** The sandbox's page API, as the page uses it (packages/slack-sandbox/README.md). */
export class SandboxHands {
  constructor(private readonly url: string) {}

  async state(person: string): Promise<z.infer<typeof stateSchema> | undefined> {
    const response = await fetch(`${this.url}/sandbox/state?user=${personId(person)}`, {
      signal: AbortSignal.timeout(2_000),
    }).catch(() => undefined);
    if (!response?.ok) return undefined;
    return stateSchema.parse(await response.json());
  }

  async post(route: string, body: Record<string, unknown>): Promise<unknown> {
    const response = await fetch(`${this.url}/sandbox/${route}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`POST /sandbox/${route}: ${response.status} ${await response.text()}`);
    return response.json();
  }

  /**
   * Types a slash command as a person in a channel, and waits until the run it starts is done:
   * its root message's status line says so (or says how it ended otherwise, which fails).
   */
  async type(person: string, channel: string, line: string, timeoutMs: number): Promise<string> {
    const channelId = channelIdOf(channel);
    const [command = '', ...words] = line.trim().split(/\s+/);
    const before = new Set(
      (await this.state(person))?.conversations[channelId]?.messages.map((m) => m.ts),
    );
    await this.post('command', {
      user: personId(person),
      channel: channelId,
      command,
      text: words.join(' '),
    });
    const done = runStatusText({ kind: 'done' });
    const ended = (['rejected', 'expired', 'withdrawn', 'failed'] as const).map((kind) =>
      runStatusText({ kind }),
    );
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      const messages = (await this.state(person))?.conversations[channelId]?.messages ?? [];
      const root = messages.find(
        (message) => !before.has(message.ts) && message.bot_id !== undefined,
      );
      last = root ? JSON.stringify(root.blocks ?? []) : '(no run root yet)';
      if (root && last.includes(JSON.stringify(done).slice(1, -1))) return root.ts;
      const how = ended.find((text) => last.includes(JSON.stringify(text).slice(1, -1)));
      if (how) throw new Error(`"${line}" ended "${how}": ${last}`);
      await sleep(300);
    }
    throw new Error(`"${line}" was not done within ${timeoutMs / 1000} s; its root: ${last}`);
  }

  /** Every Approve button a person can see, in channels and threads: [channel, message, block]. */
  async approveButtons(
    person: string,
    actionId: string,
  ): Promise<Array<[string, SandboxMessage, string, string]>> {
    const state = await this.state(person);
    if (!state) return [];
    const found: Array<[string, SandboxMessage, string, string]> = [];
    for (const [channel, conversation] of Object.entries(state.conversations)) {
      const messages = [...conversation.messages, ...Object.values(conversation.threads).flat()];
      for (const message of messages) {
        for (const block of message.blocks ?? []) {
          for (const element of block.elements ?? []) {
            if (element.action_id === actionId && block.block_id !== undefined) {
              found.push([channel, message, block.block_id, element.value ?? '']);
            }
          }
        }
      }
    }
    return found;
  }
}

/**
 * Bob, approving every card that asks him, once per gate, wherever it is (#ops, #payments), as
 * the docs ask the reader to; it remembers where it approved. Like a person, he reads a card
 * before he clicks (`READING_MS`): an agent that calls its pause off at once (docs/plugins.md)
 * gets there first.
 */
export class Approver {
  private static readonly READING_MS = 1_000;
  private stopped = false;
  private readonly clicked = new Set<string>();
  private readonly seen = new Map<string, number>();
  /** Each approval: the card's channel and the thread it is in (its own ts when a root). */
  readonly approvals: Array<{ channel: string; threadTs: string }> = [];
  private readonly loop: Promise<void>;

  constructor(
    private readonly sandbox: SandboxHands,
    private readonly actionId: string,
  ) {
    this.loop = this.run();
  }

  approvalsIn(channel: string, threadTs: string): number {
    const channelId = channelIdOf(channel);
    return this.approvals.filter((a) => a.channel === channelId && a.threadTs === threadTs).length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const buttons = await this.sandbox.approveButtons('bob', this.actionId).catch(() => []);
      for (const [channel, message, blockId, value] of buttons) {
        const key = `${channel}:${message.ts}:${blockId}:${value}`;
        if (this.clicked.has(key)) continue;
        const seenAt = this.seen.get(key) ?? Date.now();
        this.seen.set(key, seenAt);
        if (Date.now() - seenAt < Approver.READING_MS) continue;
        this.clicked.add(key);
        this.approvals.push({ channel, threadTs: message.thread_ts ?? message.ts });
        await this.sandbox
          .post('click', {
            user: personId('bob'),
            channel,
            messageTs: message.ts,
            actionId: this.actionId,
            blockId,
            value,
          })
          .catch(() => undefined);
      }
      await sleep(250);
    }
  }
}

function personId(name: string): string {
  const person = Object.entries(PEOPLE).find(([key]) => key === name)?.[1];
  if (!person) throw new Error(`no person ${name} in the sandbox`);
  return person.id;
}

function channelIdOf(name: string): string {
  const channel = Object.entries(CHANNELS).find(([key]) => key === name)?.[1];
  if (!channel) throw new Error(`no channel #${name} in the sandbox`);
  return channel.id;
}
