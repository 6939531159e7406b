import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { formatIssues } from '../adk/wire/tolerant-schema.js';
import { keyCoversApp, webhookAllowed } from '../approvals/api-keys/api-key-scope.js';
import type { ApiKey } from '../approvals/api-keys/api-keys-file.js';
import type { AuditLog } from '../approvals/store-roles/audit-log.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { parseTraceparent } from '../tracing/traceparent.js';
import type { ApiRuns } from '../workflow/api-run-control.js';
import type { ExternalPauses } from '../workflow/external-pauses.js';
import type { GrantDecisions } from '../workflow/grant-decisions.js';
import { auditRoute } from './audit-route.js';
import { authenticate } from './auth.js';
import { listGrants, revokeGrant } from './grant-routes.js';
import {
  cancelRequestSchema,
  claimRequestSchema,
  outcomeRequestSchema,
  parsePauseRequest,
  waitSchema,
} from './pause-request.js';
import { readJsonBody } from './request-body.js';
import { type ApiAnswer, heldBody, pauseBody, send, unsupportedBody } from './responses.js';
import { cancelRun, readRun, startRun } from './run-routes.js';

/** The ADK target a pause in `adk` mode resumes on when it names none: ADK_BASE_URL. */
export const DEFAULT_ADK_TARGET = 'default';

type RouteRequest = IncomingMessage & { params?: Record<string, string | string[]> };
type Handler = (req: RouteRequest, key: ApiKey) => Promise<ApiAnswer>;

/**
 * The approvals API, served on the app's port through Bolt's custom routes (HTTP and Socket
 * Mode alike). Handlers only authenticate, parse and call the workflow; `send` maps answers to
 * status codes. Without keys (no API_KEYS_FILE) every `/v1` path answers 404 saying so.
 */
export function apiRoutes(
  options:
    | {
        keys: readonly ApiKey[];
        /** The workflow's entry points; a function because the workflow is built after the routes. */
        pauses: () => ExternalPauses;
        /** What `GET /v1/audit` exports from. */
        store: () => { audit: Pick<AuditLog, 'readAuditPage'> };
        /** People's scoped grants (`/v1/grants`); a function for the same reason as `pauses`. */
        grants: () => GrantDecisions;
        /** Runs started over the API; a function for the same reason as `pauses`. */
        runs: () => ApiRuns;
        log: Log;
      }
    | undefined,
): CustomRoute[] {
  if (options === undefined) {
    const off = (_req: IncomingMessage, res: ServerResponse) => send(res, { kind: 'api_off' });
    return [{ path: '/v1/*rest', method: ['GET', 'POST', 'DELETE'], handler: off }];
  }
  const { keys, log } = options;
  const pauses = { get: options.pauses };
  const handle = async (path: string, handler: Handler, req: RouteRequest, res: ServerResponse) => {
    const auth = authenticate(req, keys);
    if (auth.kind !== 'key') return send(res, { kind: 'unauthenticated' });
    try {
      send(res, await handler(req, auth.key));
    } catch (error) {
      log.error('API request failed', { path, error: errorMessage(error) });
      if (res.headersSent) return res.end();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: 'internal',
          problems: ['the request could not be completed; retry'],
        }),
      );
    }
  };
  const route = (
    path: string,
    method: 'GET' | 'POST' | 'DELETE',
    handler: Handler,
  ): CustomRoute => ({
    path,
    method: [method],
    handler: (req: RouteRequest, res: ServerResponse) => void handle(path, handler, req, res),
  });
  const idOf = (req: RouteRequest) => {
    const id = req.params?.id;
    return typeof id === 'string' ? id : '';
  };

  return [
    auditRoute({ keys, store: options.store, log }),
    route('/v1/pauses', 'POST', async (req, key) => {
      const body = await readJsonBody(req);
      if (body.kind !== 'json') return { kind: body.kind };
      const parsed = parsePauseRequest(body.value);
      if (parsed.kind === 'invalid') return parsed;
      const { request, gates, notices } = parsed;
      if (!keyCoversApp(key, request.app)) {
        return { kind: 'forbidden', why: 'app: outside the apps this API key may post for' };
      }
      const resume =
        request.resume.mode === 'adk'
          ? { mode: 'adk' as const, target: request.resume.target ?? DEFAULT_ADK_TARGET }
          : request.resume;
      if (resume.mode === 'webhook' && !webhookAllowed(key, resume.url)) {
        return {
          kind: 'forbidden',
          why: 'resume.url: not under a webhook prefix allowed for this API key',
        };
      }
      const idempotencyKey = req.headers['idempotency-key'];
      // W3C Trace Context: a malformed or repeated traceparent is ignored (the pause starts a
      // trace of its own).
      const header = req.headers.traceparent;
      const traceparent = parseTraceparent(typeof header === 'string' ? header : undefined);
      const result = await pauses.get().create({
        keyName: key.name,
        app: request.app,
        userId: request.userId,
        sessionId: request.sessionId,
        gates,
        notices,
        external: {
          keyName: key.name,
          resume,
          ...(request.title === undefined ? {} : { title: request.title }),
          ...(request.links === undefined ? {} : { links: request.links }),
          ...(request.requestedBy === undefined ? {} : { requestedBy: request.requestedBy }),
        },
        ...(request.channel === undefined ? {} : { channel: request.channel }),
        ...(request.thread === undefined
          ? {}
          : { thread: { channelId: request.thread.channel, threadTs: request.thread.ts } }),
        ...(request.requestedBy?.slackUserId === undefined
          ? {}
          : { requesterSlackUserId: request.requestedBy.slackUserId }),
        ...(traceparent === undefined ? {} : { traceparent }),
        ...(typeof idempotencyKey === 'string' && idempotencyKey !== ''
          ? {
              idempotency: {
                key: idempotencyKey,
                fingerprint: createHash('sha256').update(body.text).digest('hex'),
              },
            }
          : {}),
      });
      switch (result.kind) {
        case 'created':
          return { kind: 'created', body: pauseBody(result.view) };
        case 'existed':
          return { kind: 'ok', body: pauseBody(result.view) };
        case 'unsupported':
          return { kind: 'ok', body: unsupportedBody(notices, result.channel) };
        case 'unknown_target':
          return { kind: 'invalid', problems: ['resume.target: not a configured ADK target'] };
        case 'no_channel':
          return {
            kind: 'invalid',
            problems: [
              'channel: required, because no policy rule names a channel for this app and tool',
            ],
          };
        case 'idempotency_conflict':
          return {
            kind: 'conflict',
            why: `Idempotency-Key: already used in the last 24 hours with a different body (for pause ${result.pauseId}); a retry sends the same body, a new pause a new key`,
          };
        case 'card_pending':
          return { kind: 'card_pending' };
      }
    }),

    route('/v1/runs', 'POST', async (req, key) => {
      const body = await readJsonBody(req);
      if (body.kind !== 'json') return { kind: body.kind };
      return startRun(key, options.runs(), body.value);
    }),
    route('/v1/runs/:id', 'GET', async (req, key) => readRun(key, options.runs(), idOf(req))),
    route('/v1/runs/:id', 'DELETE', async (req, key) => cancelRun(key, options.runs(), idOf(req))),

    route('/v1/grants', 'GET', async (req, key) =>
      listGrants(key, options.grants(), new URL(req.url ?? '/', 'http://localhost').searchParams),
    ),
    route('/v1/grants/:id', 'DELETE', async (req, key) =>
      revokeGrant(key, options.grants(), idOf(req)),
    ),

    route('/v1/pauses/:id', 'GET', async (req, key) => {
      const read = await pauses.get().read(key.name, idOf(req));
      return read.kind === 'found'
        ? { kind: 'ok', body: pauseBody(read.view, read.notes, read.names) }
        : { kind: 'not_found' };
    }),

    route('/v1/pauses/:id/decision', 'GET', async (req, key) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const wait = waitSchema.safeParse(url.searchParams.get('wait') ?? undefined);
      if (!wait.success)
        return { kind: 'invalid', problems: formatIssues(wait.error.issues, 'wait') };
      const result = await pauses.get().decision(key.name, idOf(req), (wait.data ?? 0) * 1000);
      switch (result.kind) {
        case 'decided':
          return { kind: 'ok', body: result.body };
        case 'pending':
          return { kind: 'accepted', body: { id: idOf(req), status: 'pending' } };
        case 'held':
          return { kind: 'accepted', body: heldBody(idOf(req), result.holdUntil) };
        case 'not_found':
          return { kind: 'not_found' };
      }
    }),

    route('/v1/pauses/:id/cancel', 'POST', async (req, key) => {
      const body = await readJsonBody(req);
      if (body.kind !== 'json') return { kind: body.kind };
      const parsed = cancelRequestSchema.safeParse(body.value);
      if (!parsed.success) return { kind: 'invalid', problems: formatIssues(parsed.error.issues) };
      const result = await pauses.get().cancel(key.name, idOf(req), parsed.data.reason);
      switch (result.kind) {
        case 'cancelled':
          return { kind: 'ok', body: pauseBody(result.view) };
        case 'nothing_pending':
          return { kind: 'conflict', why: 'the pause has no pending gate left to cancel' };
        case 'not_found':
          return { kind: 'not_found' };
      }
    }),

    route('/v1/pauses/:id/claim', 'POST', async (req, key) => {
      const body = await readJsonBody(req);
      if (body.kind !== 'json') return { kind: body.kind };
      const parsed = claimRequestSchema.safeParse(body.value);
      if (!parsed.success) return { kind: 'invalid', problems: formatIssues(parsed.error.issues) };
      const { callId } = parsed.data;
      const result = await pauses.get().claimRun(key.name, idOf(req), callId);
      if (typeof result === 'object') {
        return {
          kind: 'held',
          holdUntil: result.held,
          why: 'callId: the approval is held until holdUntil (an undo window) and may still be undone; ask for the decision again then',
        };
      }
      switch (result) {
        case 'claimed':
          return { kind: 'ok', body: { id: idOf(req), callId, claimed: true } };
        case 'taken':
          return {
            kind: 'conflict',
            why: 'callId: the decision was already claimed to run this call (single use)',
          };
        case 'not_approved':
          return { kind: 'conflict', why: 'callId: the gate is not approved' };
        case 'unknown_gate':
          return { kind: 'invalid', problems: ['callId: names no gate of this pause'] };
        case 'not_found':
          return { kind: 'not_found' };
      }
    }),

    route('/v1/pauses/:id/outcome', 'POST', async (req, key) => {
      const body = await readJsonBody(req);
      if (body.kind !== 'json') return { kind: body.kind };
      const parsed = outcomeRequestSchema.safeParse(body.value);
      if (!parsed.success) return { kind: 'invalid', problems: formatIssues(parsed.error.issues) };
      const { callId, status, detail } = parsed.data;
      const result = await pauses.get().reportOutcome(key.name, idOf(req), callId, {
        status,
        ...(detail === undefined ? {} : { detail }),
      });
      switch (result) {
        case 'recorded':
          return { kind: 'ok', body: { id: idOf(req), callId, status } };
        case 'unknown_gate':
          return { kind: 'invalid', problems: ['callId: names no gate of this pause'] };
        case 'not_found':
          return { kind: 'not_found' };
      }
    }),
  ];
}
