import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type RunningStack, startStack } from '../../src/dev/local-stack.js';
import { createLog } from '../../src/log.js';

/**
 * The ports `npm start` listens on, each named by a variable: a port another process holds stops
 * the start with a message naming that variable (two `npm start` at once, a stale process), and
 * the demo agents' port can be chosen. The stack as `npm start` runs it.
 */

const held: Server[] = [];
let stack: RunningStack | undefined;
const logs: string[] = [];

afterEach(async () => {
  await stack?.stop();
  stack = undefined;
  for (const server of held.splice(0)) await new Promise((resolve) => server.close(resolve));
  logs.length = 0;
});

/** A port another process (here: this one) listens on, on every interface, hanging up at once. */
async function takenPort(): Promise<number> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, resolve));
  held.push(server);
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

async function freePort(): Promise<number> {
  const port = await takenPort();
  const server = held.pop();
  await new Promise((resolve) => server?.close(resolve));
  return port;
}

function start(env: Record<string, string>): Promise<RunningStack> {
  return startStack(
    loadConfig({ PORT: '0', SANDBOX_PORT: '0', ...env }),
    createLog('debug', 'app', (line) => logs.push(line)),
  );
}

describe('a port another process holds', () => {
  it('PORT: the start stops naming PORT', async () => {
    const port = await takenPort();
    await expect(start({ PORT: String(port), ADK_BASE_URL: inject('adkBaseUrl') })).rejects.toThrow(
      `PORT=${port}: the port is in use by another process (EADDRINUSE)`,
    );
  });

  it('SANDBOX_PORT: the start stops naming SANDBOX_PORT, before the demo agents load', async () => {
    const port = await takenPort();
    await expect(start({ SANDBOX_PORT: String(port) })).rejects.toThrow(
      `SANDBOX_PORT=${port}: the port is in use by another process (EADDRINUSE)`,
    );
    expect(logs.filter((line) => line.includes('adk api_server'))).toEqual([]);
  });

  it('DEMO_ADK_PORT: the start stops naming DEMO_ADK_PORT', async () => {
    const port = await takenPort();
    await expect(start({ DEMO_ADK_PORT: String(port) })).rejects.toThrow(
      `DEMO_ADK_PORT=${port}: the port is in use by another process (EADDRINUSE)`,
    );
  }, 120_000);
});

describe('DEMO_ADK_PORT', () => {
  it('puts the demo agents on that port', async () => {
    const port = await freePort();
    stack = await start({ DEMO_ADK_PORT: String(port) });
    const apps = await fetch(`http://127.0.0.1:${port}/list-apps`).then((r) => r.json());
    expect(apps).toEqual(expect.arrayContaining(['ops', 'payments']));
  }, 180_000);
});
