import { z } from 'zod';
import type { Gate } from '../adk/gate.js';
import { formatIssues } from '../adk/wire/tolerant-schema.js';
import { parseEvent } from '../adk/wire.js';
import { OUTCOME_STATUSES } from '../approvals/records.js';
import { type StreamNotices, StreamRequests } from '../workflow/stream-requests.js';

/**
 * The body of `POST /v1/pauses`, parsed at the edge. Events are parsed with the app's own ADK
 * parser, so every flavour it reads is accepted; problems name a path, never a value.
 */

const httpLink = z
  .string()
  .max(2_000)
  .refine((value) => /^https?:\/\//i.test(value), 'expected an http(s) URL');

const channelId = z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'expected a Slack channel id');

export const pauseRequestSchema = z
  .strictObject({
    app: z.string().min(1).max(200),
    userId: z.string().min(1).max(200),
    sessionId: z.string().min(1).max(200),
    events: z.array(z.unknown()).min(1, 'expected at least one ADK event').max(100),
    resume: z.discriminatedUnion('mode', [
      z.strictObject({ mode: z.literal('adk'), target: z.string().min(1).max(64).optional() }),
      z.strictObject({ mode: z.literal('webhook'), url: z.string().min(1).max(2_000) }),
      z.strictObject({ mode: z.literal('poll') }),
    ]),
    channel: channelId.optional(),
    /**
     * A thread the card goes into, as a reply: where the person talked to the agent (e.g. ADK's
     * SlackRunner). It names the card's channel; a `channel` beside it must be the same.
     */
    thread: z
      .strictObject({
        channel: channelId,
        ts: z.string().regex(/^\d+\.\d+$/, 'expected a Slack message ts'),
      })
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
  })
  .refine(
    (request) =>
      request.thread === undefined ||
      request.channel === undefined ||
      request.channel === request.thread.channel,
    { path: ['channel'], message: 'differs from thread.channel: the card goes in the thread' },
  );
export type PauseRequest = z.infer<typeof pauseRequestSchema>;

export type ParsedPauseRequest =
  | { kind: 'ok'; request: PauseRequest; gates: Gate[]; notices: StreamNotices }
  | { kind: 'invalid'; problems: string[] };

/**
 * The request and what its events ask of people, read as the `/agent` path reads a stream:
 * confirmations and input requests are gates (one pause, one card); credential requests and
 * confirmations ADK raised no request for are notices, since nobody can answer them in Slack.
 */
export function parsePauseRequest(json: unknown): ParsedPauseRequest {
  const parsed = pauseRequestSchema.safeParse(json);
  if (!parsed.success) return { kind: 'invalid', problems: formatIssues(parsed.error.issues) };
  const request = parsed.data;
  const requests = new StreamRequests();
  const problems: string[] = [];
  request.events.forEach((raw, index) => {
    const event = parseEvent(raw);
    if (!event.success) {
      problems.push(...event.error.problems.map((problem) => `events[${index}].${problem}`));
      return;
    }
    const invalid = requests.add(event.data);
    if (invalid !== undefined) {
      problems.push(...invalid.problems.map((problem) => `events[${index}].content.${problem}`));
    }
  });
  if (problems.length > 0) return { kind: 'invalid', problems };
  const { gates, credentialTools, unraisedConfirmations } = requests.summary();
  if (gates.length + credentialTools.length + unraisedConfirmations.length === 0) {
    return {
      kind: 'invalid',
      problems: [
        'events: no adk_request_confirmation, adk_request_input or adk_request_credential request in any event (nothing to ask; post the events that carry the request)',
      ],
    };
  }
  return { kind: 'ok', request, gates, notices: { credentialTools, unraisedConfirmations } };
}

export const cancelRequestSchema = z.strictObject({ reason: z.string().max(2_000).optional() });

export const outcomeRequestSchema = z.strictObject({
  callId: z.string().min(1),
  status: z.enum(OUTCOME_STATUSES),
  detail: z.string().max(2_000).optional(),
});

export const claimRequestSchema = z.strictObject({ callId: z.string().min(1) });

/** `wait` of the decision long-poll: whole seconds, 1–30; absent: answer at once. */
export const waitSchema = z
  .string()
  .regex(/^\d+$/, 'expected whole seconds')
  .transform(Number)
  .pipe(z.number().min(1, 'expected at least 1 second').max(30, 'expected at most 30 seconds'))
  .optional();
