import { randomBytes } from 'node:crypto';
import { FAKE_APP, pauseEvent } from '../../bench/support/fake-adk.js';

/**
 * One `POST /v1/pauses` as an agent's client sends it: a pause of the fake ADK app in poll mode,
 * in a session of its own, under one Idempotency-Key, so that sending it again (to any app
 * process, after a crash) is the client's retry of the same request.
 */
export function apiPausePost(options: {
  apiKey: string;
  channel: string;
  amount: number;
}): (port: number) => Promise<Response> {
  const { event } = pauseEvent(FAKE_APP, [{ text: `transfer ${options.amount}` }]);
  const body = JSON.stringify({
    app: FAKE_APP,
    userId: 'u-agent',
    sessionId: `s-${randomBytes(6).toString('hex')}`,
    events: [event],
    resume: { mode: 'poll' },
    channel: options.channel,
  });
  const idempotencyKey = `k-${randomBytes(8).toString('hex')}`;
  return (port) =>
    fetch(`http://127.0.0.1:${port}/v1/pauses`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body,
    });
}
