import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { keyCoversApp, keyCoversEveryApp } from '../approvals/api-keys/api-key-scope.js';
import type { ApiKey } from '../approvals/api-keys/api-keys-file.js';
import { auditExportLines } from '../approvals/audit-export.js';
import type { AuditLog } from '../approvals/store-roles/audit-log.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { parseAuditQuery } from './audit-query.js';
import { authenticate } from './auth.js';
import { send } from './responses.js';

/**
 * `GET /v1/audit`: the audit trail as NDJSON (audit-export.ts), streamed with backpressure, for
 * keys with `audit: true`, and only the entries of the apps the key covers.
 */
export function auditRoute(options: {
  keys: readonly ApiKey[];
  store: () => { audit: Pick<AuditLog, 'readAuditPage'> };
  log: Log;
}): CustomRoute {
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const auth = authenticate(req, options.keys);
    if (auth.kind !== 'key') return send(res, { kind: 'unauthenticated' });
    const key = auth.key;
    if (!key.audit) {
      return send(res, {
        kind: 'forbidden',
        why: 'this API key may not read the audit (audit: true)',
      });
    }
    const parsed = parseAuditQuery(new URL(req.url ?? '/', 'http://localhost').searchParams);
    if (!parsed.ok) return send(res, { kind: 'invalid', problems: parsed.problems });
    const mayRead = (app: string | undefined) =>
      app === undefined ? keyCoversEveryApp(key) : keyCoversApp(key, app);
    try {
      const lines = auditExportLines(options.store(), parsed.query, mayRead);
      // The first line is read before the headers go out, so that a store failure is a 500.
      const first = await lines.next();
      res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
      if (!first.done) await write(res, first.value);
      for await (const line of lines) await write(res, line);
      res.end();
    } catch (error) {
      options.log.error('audit export failed', { key: key.name, error: errorMessage(error) });
      if (res.headersSent) {
        // Cut short: the export has no cursor line, so the reader knows it is incomplete.
        res.destroy();
        return;
      }
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'internal', problems: ['the export failed; retry'] }));
    }
  };
  return {
    path: '/v1/audit',
    method: ['GET'],
    handler: (req, res) => void handler(req, res),
  };
}

async function write(res: ServerResponse, line: string): Promise<void> {
  if (!res.write(`${line}\n`)) await once(res, 'drain');
}
