import { describe, expect, it } from 'vitest';
import {
  checkSignature,
  parseAlertmanagerNotice,
  parseWebhookNotice,
} from '../../src/api/alert-requests.js';
import { webhookSignature } from '../../src/workflow/webhook-deliveries.js';

const NOW = Date.parse('2026-11-28T04:00:00Z');

/**
 * A group whose root says firing while one alert resolved, in the shape Alertmanager 0.25 sends
 * (firing alerts' `endsAt` is Go's zero time); test/e2e/alerts.test.ts gets real ones.
 */
const MIXED = {
  receiver: 'slack-runbooks',
  status: 'firing',
  alerts: [
    {
      status: 'resolved',
      labels: { alertname: 'ConsumerStuck', instance: 'a', service: 'search-consumer' },
      annotations: { summary: 'lag on a' },
      startsAt: '2026-11-28T03:50:00Z',
      endsAt: '2026-11-28T03:59:00Z',
      generatorURL: '',
      fingerprint: '0f1b2c3d4e5f6a7b',
    },
    {
      status: 'firing',
      labels: { alertname: 'ConsumerStuck', instance: 'b', service: 'search-consumer' },
      annotations: {},
      startsAt: '2026-11-28T03:50:00Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: '',
      fingerprint: '1a2b3c4d5e6f7a8b',
    },
  ],
  groupLabels: { alertname: 'ConsumerStuck', service: 'search-consumer' },
  commonLabels: { alertname: 'ConsumerStuck', service: 'search-consumer', team: 'search' },
  commonAnnotations: { runbook: 'https://runbooks.example/consumer' },
  externalURL: 'http://alertmanager:9093',
  version: '4',
  groupKey: '{}:{alertname="ConsumerStuck", service="search-consumer"}',
  truncatedAlerts: 0,
};

describe("Alertmanager's payload", () => {
  it("reads each alert by its own status, never the group's, with the group's labels under its own", () => {
    const parsed = parseAlertmanagerNotice(MIXED, NOW);
    if (parsed.kind !== 'notice') throw new Error(parsed.problems.join('; '));
    expect(parsed.notice.group).toBe(MIXED.groupKey);
    expect(parsed.notice.alerts.map((a) => [a.fingerprint, a.status])).toEqual([
      ['0f1b2c3d4e5f6a7b', 'resolved'],
      ['1a2b3c4d5e6f7a8b', 'firing'],
    ]);
    expect(parsed.notice.alerts[0]).toMatchObject({
      labels: { team: 'search', instance: 'a' },
      annotations: { summary: 'lag on a', runbook: 'https://runbooks.example/consumer' },
      resolvedAt: Date.parse('2026-11-28T03:59:00Z'),
    });
  });

  it('takes now as the resolve time when endsAt is ahead of this clock', () => {
    const ahead = structuredClone(MIXED);
    const [first] = ahead.alerts;
    if (first) first.endsAt = '2026-11-28T05:00:00Z';
    const parsed = parseAlertmanagerNotice(ahead, NOW);
    expect(parsed.kind === 'notice' && parsed.notice.alerts[0]?.resolvedAt).toBe(NOW);
  });

  it('refuses another payload version, naming the field', () => {
    expect(parseAlertmanagerNotice({ ...MIXED, version: '3' }, NOW)).toEqual({
      kind: 'invalid',
      problems: ['version: expected "4" (Alertmanager\'s webhook payload version)'],
    });
  });
});

describe('the signed webhook', () => {
  const secret = 'a-signing-secret-of-at-least-32-characters';
  const body = '{"fingerprint":"x","status":"firing","labels":{}}';
  const seconds = Math.floor(NOW / 1000);

  it('accepts its own delivery signature, within five minutes either way', () => {
    expect(
      checkSignature(webhookSignature(secret, seconds - 299, body), secret, body, NOW),
    ).toEqual({ ok: true });
    expect(
      checkSignature(webhookSignature(secret, seconds + 299, body), secret, body, NOW).ok,
    ).toBe(true);
  });

  it('refuses a wrong secret, another body, a stale timestamp and a missing header, saying which', () => {
    const why = (header: string | undefined, text = body) => {
      const check = checkSignature(header, secret, text, NOW);
      return check.ok ? 'ok' : check.why;
    };
    expect(why(webhookSignature('another-secret', seconds, body))).toMatch(/does not match/);
    expect(why(webhookSignature(secret, seconds, body), `${body} `)).toMatch(/does not match/);
    expect(why(webhookSignature(secret, seconds - 301, body))).toMatch(/stale/);
    expect(why(undefined)).toMatch(/expected "t=<unix seconds>,v1=/);
  });

  it('reads one alert, its group defaulting to its fingerprint, and refuses unknown fields', () => {
    const parsed = parseWebhookNotice('pager', JSON.parse(body), NOW);
    expect(parsed).toMatchObject({
      kind: 'notice',
      notice: { source: 'webhook:pager', group: 'x', alerts: [{ status: 'firing' }] },
    });
    expect(parseWebhookNotice('pager', { ...JSON.parse(body), severity: 'high' }, NOW)).toEqual({
      kind: 'invalid',
      problems: ['(root): Unrecognized key: "severity"'],
    });
  });
});
