import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { AdkClient, RunItem, RunRequest } from '../../src/adk/client.js';
import type { Decision, Gate } from '../../src/adk/gate.js';
import {
  type AdkEvent,
  buildResume,
  eventText,
  parseGates,
  toolResults,
} from '../../src/adk/wire.js';

/** A session on a real ADK API server, driven the way the app drives it. */
export interface Conversation {
  appName: string;
  userId: string;
  sessionId: string;
  send(text: string, options?: { streaming?: boolean }): Promise<AdkEvent[]>;
  resume(gates: Gate[], decisions: Record<string, Decision>): Promise<AdkEvent[]>;
}

export async function startConversation(
  client: AdkClient,
  appName: string,
  userId: string,
): Promise<Conversation> {
  const session = await client.createSession(appName, userId, { sessionId: `s-${randomUUID()}` });
  const run = async (pieces: Pick<RunRequest, 'newMessage' | 'streaming' | 'invocationId'>) =>
    events(client.runSse({ appName, userId, sessionId: session.id, ...pieces }));
  return {
    appName,
    userId,
    sessionId: session.id,
    send: (text, options) =>
      run({ newMessage: { role: 'user', parts: [{ text }] }, streaming: options?.streaming }),
    resume: (gates, decisions) => run(buildResume(gates, decisions, { resumable: false })),
  };
}

/** Every event of a run; a malformed frame fails the test. */
export async function events(run: AsyncIterable<RunItem>): Promise<AdkEvent[]> {
  const out: AdkEvent[] = [];
  for await (const item of run) {
    if (item.type === 'malformed') throw item.error;
    out.push(item.event);
  }
  return out;
}

/** The one pause among a run's events. */
export function pauseOf(run: AdkEvent[]): Gate[] {
  const pauses = run.flatMap((event) => {
    const scan = parseGates(event);
    if (scan.kind === 'invalid') throw new Error(scan.problems.join('; '));
    return scan.kind === 'pause' ? [scan.gates] : [];
  });
  expect(pauses).toHaveLength(1);
  return pauses[0] ?? [];
}

export function onlyGate(run: AdkEvent[]): Gate {
  const gates = pauseOf(run);
  expect(gates).toHaveLength(1);
  const [gate] = gates;
  if (!gate) throw new Error('no gate');
  return gate;
}

/** The events of a run that raise a gate. */
export const gateEvents = (run: AdkEvent[]) =>
  run.filter((event) => parseGates(event).kind !== 'none');
export const texts = (run: AdkEvent[]) => run.flatMap((event) => eventText(event) ?? []);
export const results = (run: AdkEvent[]) => run.flatMap(toolResults);

/** How many times the tool ran to success in the conversation so far, from the stored session. */
export async function countToolRuns(
  client: AdkClient,
  chat: Conversation,
  toolName: string,
): Promise<number> {
  const session = await client.getSession(chat.appName, chat.userId, chat.sessionId);
  return session.events.filter((event) =>
    toolResults(event).some((result) => result.name === toolName && result.status === 'ok'),
  ).length;
}
