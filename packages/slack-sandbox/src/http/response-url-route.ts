import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyReply, describeFailure } from '../interactions/replies.js';
import type { JsonObject } from '../json.js';
import type { SandboxState } from '../state.js';
import { loggedArguments } from '../web-api/arguments.js';
import { mediaType, parseForm, parseJsonObject, readBody, sendJson, sendText } from './bodies.js';

/**
 * `POST /response/<id>`: the `response_url`s the sandbox hands out. Bolt's `respond()` posts JSON;
 * Slack also takes `payload=<JSON>` forms. Refusals are HTTP errors with a short text body, as
 * Slack's are, and `respond()` throws on them.
 */
export async function handleResponseUrl(
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  state: SandboxState,
): Promise<void> {
  if (req.method !== 'POST') return sendText(res, 405, 'method_not_allowed');
  const body = await readBody(req);
  if (!body.ok) return sendText(res, 413, 'request_too_large');
  const parsed = parseReply(body.text, mediaType(req));
  if (!parsed) return sendText(res, 400, 'invalid_payload');
  const record = (status: number, error: string | undefined) => {
    state.recordCall({
      method: 'response_url',
      args: loggedArguments(parsed),
      status,
      ok: error === undefined,
      error,
      atMs: state.nowMs(),
    });
    state.changed();
  };
  const use = state.responseUrls.use(id);
  if (!use.ok) {
    record(404, use.error);
    return sendText(res, 404, use.error);
  }
  const outcome = applyReply(state, use.target, parsed);
  if (!outcome.ok) {
    record(400, describeFailure(outcome.result));
    const error =
      typeof outcome.result.error === 'string' ? outcome.result.error : 'invalid_payload';
    return sendText(res, 400, error);
  }
  record(200, undefined);
  sendJson(res, 200, { ok: true });
}

function parseReply(text: string, type: string): JsonObject | undefined {
  if (type === 'application/x-www-form-urlencoded') {
    const payload = parseForm(text).payload;
    if (typeof payload !== 'string') return undefined;
    const json = parseJsonObject(payload);
    return json.ok ? json.value : undefined;
  }
  const json = parseJsonObject(text);
  return json.ok ? json.value : undefined;
}
