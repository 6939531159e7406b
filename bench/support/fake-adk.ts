import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { epochMs } from '../processes/epoch.js';

/**
 * A fast stand-in for the ADK API server, implementing just what the app calls. A prompt pauses
 * at once on one `adk_request_confirmation` (the shape of a real capture, fresh ids per call); a
 * resume is recorded with its arrival time and answered with one short text event. Counting every
 * resume per confirmation call id shows duplicates.
 */

export const FAKE_APP = 'bench_payments';
const CONFIRMATION = 'adk_request_confirmation';
const HINT =
  'Please approve or reject the tool call transfer_money() by responding with a FunctionResponse with an expected ToolConfirmation payload.';

const runRequestSchema = z.object({
  appName: z.string(),
  userId: z.string(),
  sessionId: z.string(),
  newMessage: z.object({
    parts: z.array(
      z.object({
        text: z.string().optional(),
        functionResponse: z.object({ id: z.string(), name: z.string() }).optional(),
      }),
    ),
  }),
});

export interface FakeAdk {
  baseUrl: string;
  /** Confirmations asked for so far. */
  issued(): number;
  /** Epoch-ms arrival times of the resumes for each confirmation call id. */
  arrivals(callId: string): readonly number[];
  /** Resumes naming a call id this server never issued. */
  strangers(): number;
  /** Resolves once every id has been resumed at least once; rejects after `timeoutMs`. */
  waitForResumes(callIds: readonly string[], timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startFakeAdk(): Promise<FakeAdk> {
  const issuedIds = new Set<string>();
  const arrivals = new Map<string, number[]>();
  let strangers = 0;
  let changed: () => void = () => {};

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://adk').pathname;
    if (req.method === 'GET' && path === '/list-apps') return sendJson(res, [FAKE_APP]);
    const session = /^\/apps\/([^/]+)\/users\/([^/]+)\/sessions$/.exec(path);
    if (req.method === 'POST' && session) {
      await readBody(req);
      return sendJson(res, {
        id: `s-${randomUUID()}`,
        appName: decodeURIComponent(session[1] ?? ''),
        userId: decodeURIComponent(session[2] ?? ''),
        state: {},
        events: [],
        lastUpdateTime: Date.now(),
      });
    }
    if (req.method === 'POST' && path === '/run_sse') {
      const run = runRequestSchema.parse(JSON.parse(await readBody(req)));
      const answers = run.newMessage.parts.flatMap((part) =>
        part.functionResponse?.name === CONFIRMATION ? [part.functionResponse.id] : [],
      );
      if (answers.length === 0) {
        const { event, confirmationId } = pauseEvent(run.appName, run.newMessage.parts);
        issuedIds.add(confirmationId);
        return sendEvents(res, [event]);
      }
      const at = epochMs();
      for (const id of answers) {
        if (!issuedIds.has(id)) strangers += 1;
        const times = arrivals.get(id) ?? [];
        times.push(at);
        arrivals.set(id, times);
      }
      changed();
      return sendEvents(res, [textEvent(run.appName, 'Done: the transfer went through.')]);
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: `no route ${req.method} ${path}` }));
  };

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  const { port } = address;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    issued: () => issuedIds.size,
    arrivals: (callId) => arrivals.get(callId) ?? [],
    strangers: () => strangers,
    waitForResumes(callIds, timeoutMs) {
      const allArrived = () => callIds.every((id) => arrivals.has(id));
      if (allArrived()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          changed = () => {};
          const missing = callIds.filter((id) => !arrivals.has(id)).length;
          reject(new Error(`${missing} of ${callIds.length} resumes did not arrive`));
        }, timeoutMs);
        changed = () => {
          if (!allArrived()) return;
          clearTimeout(timer);
          changed = () => {};
          resolve();
        };
      });
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The pause event of capture 10a: the model's call and ADK's confirmation request for it. */
export function pauseEvent(
  appName: string,
  parts: ReadonlyArray<{ text?: string | undefined }>,
): { event: object; confirmationId: string } {
  const amount = Number(/\d+/.exec(parts.map((part) => part.text ?? '').join(' '))?.[0] ?? 1);
  const originalCall = { name: 'transfer_money', args: { amount }, id: `adk-${randomUUID()}` };
  const confirmationId = `adk-${randomUUID()}`;
  const event = {
    invocationId: `e-${randomUUID()}`,
    author: appName,
    content: {
      parts: [
        {
          functionCall: {
            name: CONFIRMATION,
            args: {
              originalFunctionCall: originalCall,
              toolConfirmation: { hint: HINT, confirmed: false },
            },
            id: confirmationId,
          },
        },
      ],
      role: 'user',
    },
    actions: {
      stateDelta: {},
      artifactDelta: {},
      requestedAuthConfigs: {},
      requestedToolConfirmations: { [originalCall.id]: { hint: HINT, confirmed: false } },
      skipSummarization: true,
    },
    longRunningToolIds: [confirmationId],
    id: randomUUID().slice(0, 8),
    timestamp: Date.now(),
  };
  return { event, confirmationId };
}

function textEvent(appName: string, text: string): object {
  return {
    invocationId: `e-${randomUUID()}`,
    author: appName,
    id: randomUUID().slice(0, 8),
    actions: {
      stateDelta: {},
      artifactDelta: {},
      requestedAuthConfigs: {},
      requestedToolConfirmations: {},
    },
    longRunningToolIds: [],
    timestamp: Date.now(),
    content: { role: 'model', parts: [{ text }] },
  };
}

function sendJson(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function sendEvents(res: ServerResponse, events: object[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}
