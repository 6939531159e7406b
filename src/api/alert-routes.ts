import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { keyCoversApp } from '../approvals/api-keys/api-key-scope.js';
import type { ApiKey } from '../approvals/api-keys/api-keys-file.js';
import type { Clock } from '../approvals/clock.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { AlertIntake, AlertNotice } from '../workflow/alert-intake.js';
import { RunStartRefused } from '../workflow/api-runs.js';
import {
  checkSignature,
  type ParsedNotice,
  parseAlertmanagerNotice,
  parseWebhookNotice,
} from './alert-requests.js';
import { authenticate } from './auth.js';
import { readJsonBody } from './request-body.js';
import { type ApiAnswer, send } from './responses.js';

type RouteRequest = IncomingMessage & { params?: Record<string, string | string[]> };

/**
 * The alert receivers (docs/runbooks.md):
 * - `POST /v1/alerts/alertmanager`: Alertmanager's webhook payload, `Authorization: Bearer <key>`;
 * - `POST /v1/alerts/webhook/{source}`: one alert from any sender, signed with the
 *   `signingSecret` of the API key named `source` (`X-Approvals-Signature`).
 * Either key needs `runs: true` and must cover each matched runbook's app. Alerts no runbook
 * matches get a 200 saying so: a sender that gets an error retries forever.
 */
export function alertRoutes(options: {
  keys: readonly ApiKey[];
  intake: () => AlertIntake;
  clock: Clock;
  log: Log;
}): CustomRoute[] {
  const { keys, log, clock } = options;
  const receive = async (key: ApiKey, parsed: ParsedNotice): Promise<ApiAnswer> => {
    if (!key.runs) {
      return { kind: 'forbidden', why: 'this API key may not start runs (runs: true)' };
    }
    if (parsed.kind === 'invalid') return parsed;
    return answerOf(
      await options.intake().receive(parsed.notice, {
        keyId: key.name,
        mayStart: (app) => keyCoversApp(key, app),
      }),
      parsed.notice,
    );
  };
  const guarded = (path: string, handler: (req: RouteRequest) => Promise<ApiAnswer>) => ({
    path,
    method: ['POST' as const],
    handler: (req: RouteRequest, res: ServerResponse) =>
      void handler(req)
        .then((answer) => send(res, answer))
        .catch((error: unknown) => {
          if (error instanceof RunStartRefused) {
            return send(res, { kind: 'invalid', problems: [error.problem] });
          }
          log.error('alert request failed', { path, error: errorMessage(error) });
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              error: 'internal',
              problems: ['the alert could not be taken; retry'],
            }),
          );
        }),
  });

  return [
    guarded('/v1/alerts/alertmanager', async (req) => {
      const auth = authenticate(req, keys);
      if (auth.kind !== 'key') return { kind: 'unauthenticated' };
      const body = await readJsonBody(req);
      if (body.kind !== 'json') return { kind: body.kind };
      return receive(auth.key, parseAlertmanagerNotice(body.value, clock()));
    }),
    guarded('/v1/alerts/webhook/:source', async (req) => {
      const source = typeof req.params?.source === 'string' ? req.params.source : '';
      const key = keys.find((candidate) => candidate.name === source);
      // Read before any answer: the signature covers the exact bytes.
      const body = await readJsonBody(req);
      if (key === undefined) {
        return { kind: 'bad_signature', why: 'source: not the name of a configured API key' };
      }
      if (body.kind === 'too_large') return body;
      const header = req.headers['x-approvals-signature'];
      const signature = checkSignature(
        typeof header === 'string' ? header : undefined,
        key.signingSecret,
        body.kind === 'json' ? body.text : '',
        clock(),
      );
      if (!signature.ok) return { kind: 'bad_signature', why: signature.why };
      if (body.kind !== 'json') return body;
      return receive(key, parseWebhookNotice(source, body.value, clock()));
    }),
  ];
}

function answerOf(
  result: Awaited<ReturnType<AlertIntake['receive']>>,
  notice: AlertNotice,
): ApiAnswer {
  if (result.kind === 'forbidden') {
    return {
      kind: 'forbidden',
      why: `runbook ${result.runbook}: its app is outside the apps this API key may start`,
    };
  }
  return {
    kind: 'ok',
    body: {
      status: result.runbooks.length === 0 ? 'unmatched' : 'received',
      alerts: notice.alerts.length,
      unmatched: result.unmatched,
      runbooks: result.runbooks,
      ...(result.runbooks.length === 0
        ? { problems: ['no runbook matches these alerts; nothing was started'] }
        : {}),
    },
  };
}
