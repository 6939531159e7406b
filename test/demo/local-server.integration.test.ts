import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEMO_APPS, LocalAdkServerError, startLocalAdkServer } from '@adk-slack-approvals/demo';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { AdkClient } from '../../src/adk/client.js';
import { onlyGate, startConversation } from '../support/adk-conversation.js';
import { TEST_AGENTS_DIR, TEST_STARTUP_TIMEOUT_MS } from '../support/adk-server.js';

/** The launcher the app uses for its demo server and the tests for theirs. */

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const cleanup: string[] = [];
afterAll(async () => {
  await Promise.all(cleanup.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Processes whose command line mentions `text` (Linux: /proc). */
async function processesMentioning(text: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const found: number[] = [];
  for (const pid of pids) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(text)) found.push(Number(pid));
  }
  return found;
}

/**
 * The demo agents as `tsc` emits them for this ESM package (type-free transpilation),
 * under the repository so that Node finds `node_modules` from there, like `dist/`.
 */
async function transpiledDemoAgents(): Promise<string> {
  const out = join(REPO_ROOT, 'test-artifacts', `demo-js-${randomUUID()}`);
  cleanup.push(out);
  const sources = join(REPO_ROOT, 'packages', 'demo', 'src');
  const files = (await readdir(sources, { recursive: true })).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const source = await readFile(join(sources, file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ES2022,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
      fileName: file,
    });
    const target = join(out, 'demo', file.replace(/\.ts$/, '.js'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
  return join(out, 'demo', 'agents');
}

describe('startLocalAdkServer', () => {
  it('serves compiled JavaScript agents without bundling them (the built app), and stop() leaves no process behind', async () => {
    const agentsDir = await transpiledDemoAgents();
    const server = await startLocalAdkServer({
      agentsDir,
      expectApps: DEMO_APPS,
      bundle: false,
      startupTimeoutMs: TEST_STARTUP_TIMEOUT_MS,
      env: { GOOGLE_API_KEY: undefined },
    });
    process.stderr.write(
      `adk api_server with unbundled demo agents ready in ${server.startupMs} ms\n`,
    );
    try {
      expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const client = new AdkClient({ baseUrl: server.baseUrl });
      const chat = await startConversation(client, 'ops', 'u-launcher');
      const gate = onlyGate(await chat.send('restart ledger'));
      expect(gate.originalCall).toMatchObject({
        name: 'restart_service',
        args: { service: 'ledger' },
      });
    } finally {
      await server.stop();
    }
    expect(await server.exited).toMatch(/^(signal|code)/);
    expect(await processesMentioning(agentsDir)).toEqual([]);
  });

  it('a missing app fails startup with what the server printed, and the server is stopped', async () => {
    const emptyAgentsDir = await mkdtemp(join(tmpdir(), 'no-agents-'));
    cleanup.push(emptyAgentsDir);

    const start = startLocalAdkServer({
      agentsDir: emptyAgentsDir,
      expectApps: ['ops'],
      startupTimeoutMs: TEST_STARTUP_TIMEOUT_MS,
    });

    await expect(start).rejects.toBeInstanceOf(LocalAdkServerError);
    const error: unknown = await start.catch((e: unknown) => e);
    if (!(error instanceof LocalAdkServerError)) throw new Error('expected a LocalAdkServerError');
    expect(error.message).toMatch(
      /^adk api_server did not start: apps missing from \/list-apps: ops/,
    );
    expect(error.output).toContain('ADK API Server started');
    expect(await processesMentioning(emptyAgentsDir)).toEqual([]);
  });

  it("a port that is taken fails startup at once with the server's reason", async () => {
    // It accepts connections and never answers, so only the server's exit can end the wait.
    const sockets = new Set<Socket>();
    const squatter = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const address = squatter.address();
    if (typeof address !== 'object' || address === null) throw new Error('no port');
    try {
      const start = startLocalAdkServer({
        agentsDir: TEST_AGENTS_DIR,
        expectApps: ['payments'],
        port: address.port,
        startupTimeoutMs: TEST_STARTUP_TIMEOUT_MS,
      });

      const error: unknown = await start.catch((e: unknown) => e);
      if (!(error instanceof LocalAdkServerError))
        throw new Error('expected a LocalAdkServerError');
      expect(error.message).toMatch(/^adk api_server did not start: the server exited/);
      expect(error.output).toContain(`Port ${address.port} is already in use`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
