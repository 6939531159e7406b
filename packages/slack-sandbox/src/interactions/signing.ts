import { createHmac } from 'node:crypto';

/** Slack's request signature: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` with the signing secret. */
export function slackSignature(
  signingSecret: string,
  timestampSec: number,
  rawBody: string,
): string {
  const digest = createHmac('sha256', signingSecret)
    .update(`v0:${timestampSec}:${rawBody}`)
    .digest('hex');
  return `v0=${digest}`;
}
