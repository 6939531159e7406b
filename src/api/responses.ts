import type { ServerResponse } from 'node:http';
import { deciderOf } from '../approvals/deciders.js';
import type { GateRecord, PauseNotes, PauseView } from '../approvals/records.js';
import { decidedByOf } from '../workflow/pause-decision.js';
import type { StreamNotices } from '../workflow/stream-requests.js';

/**
 * Every answer of the API, as a value, and the one place that maps it to a status code.
 * Bodies never echo untrusted input: errors name a field path and what was wrong.
 */
export type ApiAnswer =
  | { kind: 'created'; body: object }
  | { kind: 'ok'; body: object }
  | { kind: 'accepted'; body: object }
  | { kind: 'invalid'; problems: string[] }
  | { kind: 'not_json' }
  | { kind: 'unauthenticated' }
  /** A signed request whose signature is missing, wrong or stale: `why` says which. */
  | { kind: 'bad_signature'; why: string }
  | { kind: 'forbidden'; why: string }
  | { kind: 'not_found' }
  | { kind: 'api_off' }
  | { kind: 'conflict'; why: string }
  /** A decision held back (an undo window) until `holdUntil` (ms): refused for now. */
  | { kind: 'held'; holdUntil: number; why: string }
  /** The pause is recorded and its card on its way from another request: ask again. */
  | { kind: 'card_pending' }
  | { kind: 'too_large' };

const STATUS: Record<ApiAnswer['kind'], number> = {
  created: 201,
  ok: 200,
  accepted: 202,
  invalid: 422,
  not_json: 400,
  unauthenticated: 401,
  bad_signature: 401,
  forbidden: 403,
  not_found: 404,
  api_off: 404,
  conflict: 409,
  held: 409,
  card_pending: 503,
  too_large: 413,
};

/** Seconds a client waits before it sends a `card_pending` request again. */
const CARD_PENDING_RETRY_AFTER_S = 1;

export function send(res: ServerResponse, answer: ApiAnswer): void {
  const status = STATUS[answer.kind];
  const body = bodyOf(answer);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (answer.kind === 'unauthenticated') headers['www-authenticate'] = 'Bearer';
  if (answer.kind === 'card_pending') headers['retry-after'] = String(CARD_PENDING_RETRY_AFTER_S);
  res.writeHead(status, headers);
  res.end(JSON.stringify(body));
}

function bodyOf(answer: ApiAnswer): object {
  switch (answer.kind) {
    case 'created':
    case 'ok':
    case 'accepted':
      return answer.body;
    case 'invalid':
      return { error: 'invalid_request', problems: answer.problems };
    case 'not_json':
      return { error: 'invalid_json', problems: ['(body): not JSON'] };
    case 'unauthenticated':
      return {
        error: 'unauthenticated',
        problems: ['Authorization: expected "Bearer <API key>" with a configured key'],
      };
    case 'bad_signature':
      return { error: 'unauthenticated', problems: [answer.why] };
    case 'forbidden':
      return { error: 'forbidden', problems: [answer.why] };
    case 'not_found':
      return { error: 'not_found' };
    case 'api_off':
      return {
        error: 'not_found',
        problems: ['the approvals API is off: API_KEYS_FILE is not set'],
      };
    case 'conflict':
      return { error: 'conflict', problems: [answer.why] };
    case 'held':
      return {
        error: 'held',
        status: 'held',
        holdUntil: isoTime(answer.holdUntil),
        problems: [answer.why],
      };
    case 'card_pending':
      return {
        error: 'card_pending',
        problems: [
          'the pause is recorded and its card is being posted; send the same request again',
        ],
      };
    case 'too_large':
      return { error: 'too_large', problems: ['(body): larger than 1 MB'] };
  }
}

/**
 * `GET /v1/pauses/{id}` and the create answer: the pause and each gate. `names`: the deciders'
 * display names by user id, for `decidedBy` (an id stands in for a missing one).
 */
export function pauseBody(
  view: PauseView,
  notes?: PauseNotes,
  names: ReadonlyMap<string, string> = new Map(),
): object {
  const pending = view.gates.some((gate) => gate.state === 'pending');
  const cancelled = view.gates.some((gate) => gate.state === 'cancelled');
  const stoodDown = view.gates.some(
    (gate) =>
      gate.state === 'cancelled' && deciderOf(gate.decision?.by ?? '').kind === 'stand_down',
  );
  return {
    id: view.pause.id,
    status: pending ? 'pending' : stoodDown ? 'stood_down' : cancelled ? 'cancelled' : 'decided',
    resume: { state: view.pause.resume.state, attempts: view.pause.resume.attempts },
    gates: view.gates.map((gate) => gateBody(gate, notes, names)),
    card: { channel: view.pause.card.channelId, ts: view.pause.card.ts ?? null },
    ...(notes?.delivery === undefined ? {} : { delivery: notes.delivery }),
  };
}

function gateBody(
  gate: GateRecord,
  notes: PauseNotes | undefined,
  names: ReadonlyMap<string, string>,
): object {
  const outcome = notes?.outcomes[gate.confirmationCallId];
  return {
    callId: gate.confirmationCallId,
    tool: gate.originalCall.name,
    state: gate.state,
    votes: gate.votes.map((vote) => ({
      slackUserId: vote.voter,
      choice: vote.choice,
      at: vote.at,
      ...(vote.onBehalfOf === undefined ? {} : { onBehalfOf: vote.onBehalfOf }),
    })),
    ...(gate.decision === undefined
      ? {}
      : {
          decidedBy: decidedByOf(gate, names),
          decidedAt: gate.decision.at,
          ...(gate.decision.reason === undefined ? {} : { reason: gate.decision.reason }),
        }),
    ...(gate.expiresAt === undefined ? {} : { expiresAt: gate.expiresAt }),
    ...(outcome === undefined ? {} : { outcome }),
  };
}

/**
 * The answer to events that ask only what nobody can answer in Slack (credentials, unraised
 * confirmations): no pause, a notice in `channel`, and the requests named.
 */
export function unsupportedBody(notices: StreamNotices, channel: string): object {
  return {
    status: 'unsupported',
    channel,
    unsupported: [
      ...notices.credentialTools.map((tool) => ({ kind: 'credential', tool })),
      ...notices.unraisedConfirmations.map(({ tool }) => ({ kind: 'unraised_confirmation', tool })),
    ],
  };
}

/** `GET …/decision` while an undo window holds the decision: when it ends, never the decision. */
export function heldBody(pauseId: string, holdUntil: number): object {
  return { id: pauseId, status: 'held', holdUntil: isoTime(holdUntil) };
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
