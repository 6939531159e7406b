import { slackSignature } from './signing.js';

/** What came back from the app for one signed request. */
export type Delivery =
  | { kind: 'answered'; status: number; body: string; contentType: string }
  | { kind: 'timeout' }
  | { kind: 'unreachable'; detail: string };

/**
 * POSTs a form body to the app exactly as Slack does: `Content-Type` exactly
 * `application/x-www-form-urlencoded` (Bolt compares it verbatim), signed, and given up on when
 * the app takes longer than Slack's ack deadline.
 */
export async function deliverSigned(input: {
  url: string;
  signingSecret: string;
  body: string;
  timeoutMs: number;
  nowSec: number;
  /** Default the form type of interactions; Events API deliveries are `application/json`. */
  contentType?: string;
  /** More headers, e.g. `X-Slack-Retry-Num` on an Events API retry. */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}): Promise<Delivery> {
  const doFetch = input.fetch ?? fetch;
  try {
    const response = await doFetch(input.url, {
      method: 'POST',
      headers: {
        'content-type': input.contentType ?? 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(input.nowSec),
        'x-slack-signature': slackSignature(input.signingSecret, input.nowSec, input.body),
        'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
        ...input.headers,
      },
      body: input.body,
      signal: AbortSignal.timeout(input.timeoutMs),
    });
    const body = await response.text();
    return {
      kind: 'answered',
      status: response.status,
      body,
      contentType: response.headers.get('content-type') ?? '',
    };
  } catch (error) {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      return { kind: 'timeout' };
    }
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
    return { kind: 'unreachable', detail: cause || String(error) };
  }
}

/** `payload=<JSON>`, the form body of every interactivity request. */
export function payloadForm(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export function fieldsForm(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}
