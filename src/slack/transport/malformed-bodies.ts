import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTPModuleFunctions, type HTTPReceiver } from '@slack/bolt';
import { errorMessage } from '../../error-message.js';
import type { LineLogger } from '../../log.js';

/**
 * Answers 400 to a signed request at `endpoint` whose body is not a JSON object (`payload=null`,
 * a JSON body `null`, `[]`, `1`). Bolt's HTTP receiver reads `body.ssl_check` from whatever
 * it parsed, in a detached async function: a `null` body throws there, and the rejection is
 * unhandled. Unsigned requests go on to Bolt unchanged, which answers them 401; Bolt reuses the
 * body read here (it keeps a request's `rawBody`).
 */
export function rejectMalformedBodies(
  receiver: HTTPReceiver,
  { endpoint, signingSecret, log }: { endpoint: string; signingSecret: string; log: LineLogger },
): void {
  const boltListener = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== endpoint) {
      boltListener(req, res);
      return;
    }
    checkBody(req, signingSecret)
      .then((verdict) => {
        if (verdict.kind === 'pass') {
          boltListener(req, res);
          return;
        }
        log.warn('refused a request body', { status: verdict.status, problem: verdict.problem });
        HTTPModuleFunctions.buildNoBodyResponse(res, verdict.status);
      })
      .catch((error: unknown) => {
        log.error('could not handle a request', { error: errorMessage(error) });
        if (!res.headersSent) HTTPModuleFunctions.buildNoBodyResponse(res, 500);
      });
  };
}

type Verdict = { kind: 'pass' } | { kind: 'refuse'; status: 400 | 413; problem: string };

async function checkBody(req: IncomingMessage, signingSecret: string): Promise<Verdict> {
  try {
    await HTTPModuleFunctions.bufferIncomingMessage(req, HTTPModuleFunctions.defaultBodyLimit);
  } catch (error) {
    const tooLarge = HTTPModuleFunctions.isRawBodyError(error) && error.statusCode === 413;
    return tooLarge
      ? { kind: 'refuse', status: 413, problem: 'body too large' }
      : { kind: 'refuse', status: 400, problem: 'body could not be read' };
  }
  // Slack's own bodies hold a JSON object, which Bolt parses and verifies itself: checking the
  // signature and parsing here too would cost every click a second HMAC and JSON parse.
  if (holdsJsonObject(req)) return { kind: 'pass' };
  let buffered: Awaited<ReturnType<typeof HTTPModuleFunctions.parseAndVerifyHTTPRequest>>;
  try {
    buffered = await HTTPModuleFunctions.parseAndVerifyHTTPRequest(
      { enabled: true, signingSecret },
      req,
    );
  } catch {
    return { kind: 'pass' }; // not signed: Bolt refuses it
  }
  let body: unknown;
  try {
    body = HTTPModuleFunctions.parseHTTPRequestBody(buffered);
  } catch {
    return { kind: 'refuse', status: 400, problem: 'body is not JSON' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { kind: 'refuse', status: 400, problem: `body is ${describe(body)}, not an object` };
  }
  return { kind: 'pass' };
}

/**
 * Whether Bolt's parse of the buffered body (`parseHTTPRequestBody`) can only give an object or
 * throw (which Bolt answers itself): a form body whose first field is a `payload` starting with
 * `{` (a repeated `payload` makes Bolt keep the whole form, an object too), or a JSON body
 * starting with `{`. Anything else gets the full check.
 */
function holdsJsonObject(req: IncomingMessage): boolean {
  const { rawBody } = req as IncomingMessage & { rawBody?: Buffer };
  if (rawBody === undefined) return false;
  const contentType = req.headers['content-type'];
  if (contentType === 'application/x-www-form-urlencoded') {
    const start = rawBody.subarray(0, FORM_OBJECT_PAYLOAD.length + 2).toString('latin1');
    return (
      start.startsWith(`${FORM_OBJECT_PAYLOAD}%7B`) || start.startsWith(`${FORM_OBJECT_PAYLOAD}{`)
    );
  }
  return rawBody.subarray(0, 64).toString('latin1').trimStart().startsWith('{');
}

const FORM_OBJECT_PAYLOAD = 'payload=';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
