import { z } from 'zod';
import type { Gate } from '../adk/gate.js';
import { formatIssues } from '../adk/wire/tolerant-schema.js';
import { parseEvent, parseGates } from '../adk/wire.js';

/**
 * The body of `POST /v1/pauses`, parsed at the edge. Events are parsed with the app's own ADK
 * parser, so every flavour it reads is accepted; problems name a path, never a value.
 */

const httpLink = z
  .string()
  .max(2_000)
  .refine((value) => /^https?:\/\//i.test(value), 'expected an http(s) URL');

export const pauseRequestSchema = z.strictObject({
  app: z.string().min(1).max(200),
  userId: z.string().min(1).max(200),
  sessionId: z.string().min(1).max(200),
  events: z.array(z.unknown()).min(1, 'expected at least one ADK event').max(100),
  resume: z.discriminatedUnion('mode', [
    z.strictObject({ mode: z.literal('adk'), target: z.string().min(1).max(64).optional() }),
    z.strictObject({ mode: z.literal('webhook'), url: z.string().min(1).max(2_000) }),
    z.strictObject({ mode: z.literal('poll') }),
  ]),
  channel: z
    .string()
    .regex(/^[CG][A-Z0-9]{2,}$/, 'expected a Slack channel id')
    .optional(),
  requestedBy: z
    .strictObject({
      slackUserId: z
        .string()
        .regex(/^[UW][A-Z0-9]{2,}$/, 'expected a Slack user id')
        .optional(),
      email: z.string().max(200).optional(),
      name: z.string().max(200).optional(),
    })
    .optional(),
  title: z.string().max(200).optional(),
  links: z
    .array(z.strictObject({ text: z.string().min(1).max(200), url: httpLink }))
    .max(5)
    .optional(),
});
export type PauseRequest = z.infer<typeof pauseRequestSchema>;

export type ParsedPauseRequest =
  | { kind: 'ok'; request: PauseRequest; gates: Gate[] }
  | { kind: 'invalid'; problems: string[] };

export function parsePauseRequest(json: unknown): ParsedPauseRequest {
  const parsed = pauseRequestSchema.safeParse(json);
  if (!parsed.success) return { kind: 'invalid', problems: formatIssues(parsed.error.issues) };
  const request = parsed.data;
  const gates: Gate[] = [];
  const problems: string[] = [];
  request.events.forEach((raw, index) => {
    const event = parseEvent(raw);
    if (!event.success) {
      problems.push(...event.error.problems.map((problem) => `events[${index}].${problem}`));
      return;
    }
    const scan = parseGates(event.data);
    if (scan.kind === 'invalid') {
      problems.push(...scan.problems.map((problem) => `events[${index}].content.${problem}`));
    } else if (scan.kind === 'pause') {
      for (const gate of scan.gates) {
        if (!gates.some((seen) => seen.confirmationCallId === gate.confirmationCallId))
          gates.push(gate);
      }
    }
  });
  if (problems.length > 0) return { kind: 'invalid', problems };
  if (gates.length === 0) {
    return {
      kind: 'invalid',
      problems: [
        'events: no adk_request_confirmation request in any event (nothing to approve; post the event that carries the confirmation request)',
      ],
    };
  }
  return { kind: 'ok', request, gates };
}

export const cancelRequestSchema = z.strictObject({ reason: z.string().max(2_000).optional() });

export const outcomeRequestSchema = z.strictObject({
  callId: z.string().min(1),
  status: z.enum(['executed', 'failed', 'blocked']),
  detail: z.string().max(2_000).optional(),
});

/** `wait` of the decision long-poll: whole seconds, 1–30; absent: answer at once. */
export const waitSchema = z
  .string()
  .regex(/^\d+$/, 'expected whole seconds')
  .transform(Number)
  .pipe(z.number().min(1, 'expected at least 1 second').max(30, 'expected at most 30 seconds'))
  .optional();
