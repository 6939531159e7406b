import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { formatIssues } from '../adk/wire/tolerant-schema.js';
import type { AlertNotice, ReceivedAlert } from '../workflow/alert-intake.js';

/**
 * The alert senders' bodies, parsed once at the edge: Alertmanager's webhook payload (version 4,
 * as it is sent; fields this app does not use are ignored) and the generic signed webhook's.
 * Problems name a field path, never a value.
 */

const labelsSchema = z.record(z.string(), z.string());

const alertmanagerAlertSchema = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: labelsSchema,
  annotations: labelsSchema.optional(),
  startsAt: z.string().optional(),
  endsAt: z.string().optional(),
  generatorURL: z.string().optional(),
  fingerprint: z.string().min(1).max(256),
});

const alertmanagerSchema = z.object({
  version: z.literal('4', { error: 'expected "4" (Alertmanager\'s webhook payload version)' }),
  groupKey: z.string().min(1),
  truncatedAlerts: z.number().int().min(0).optional(),
  status: z.enum(['firing', 'resolved']),
  receiver: z.string(),
  groupLabels: labelsSchema.optional(),
  commonLabels: labelsSchema.optional(),
  commonAnnotations: labelsSchema.optional(),
  externalURL: z.string().optional(),
  alerts: z.array(alertmanagerAlertSchema).max(1000),
});

export type ParsedNotice =
  | { kind: 'notice'; notice: AlertNotice }
  | { kind: 'invalid'; problems: string[] };

/**
 * Each alert on its own: its labels over the group's common ones, its status (never the group's
 * root `status`, which says firing while some alerts resolved), and when it resolved: its
 * `endsAt`, unless that is later than now (a clock ahead of ours).
 */
export function parseAlertmanagerNotice(body: unknown, now: number): ParsedNotice {
  const parsed = alertmanagerSchema.safeParse(body);
  if (!parsed.success) return { kind: 'invalid', problems: formatIssues(parsed.error.issues) };
  const payload = parsed.data;
  const alerts = payload.alerts.map(
    (alert): ReceivedAlert => ({
      status: alert.status,
      fingerprint: alert.fingerprint,
      labels: { ...payload.commonLabels, ...alert.labels },
      annotations: { ...payload.commonAnnotations, ...alert.annotations },
      resolvedAt: resolvedAt(alert.endsAt, now),
    }),
  );
  return {
    kind: 'notice',
    notice: {
      source: 'alertmanager',
      group: payload.groupKey,
      startedBy: { kind: 'alert', id: `alertmanager/${payload.receiver}`.slice(0, 200) },
      alerts,
    },
  };
}

function resolvedAt(endsAt: string | undefined, now: number): number {
  const at = endsAt === undefined ? Number.NaN : Date.parse(endsAt);
  return Number.isFinite(at) && at > 0 && at <= now ? at : now;
}

const webhookSchema = z.strictObject({
  fingerprint: z.string().regex(/^[\x21-\x7e]{1,256}$/, 'expected 1–256 printable characters'),
  status: z.enum(['firing', 'resolved']),
  labels: labelsSchema,
  annotations: labelsSchema.optional(),
  /** Alerts of one group share a run; default: the alert's own fingerprint. */
  group: z.string().min(1).max(256).optional(),
});

/** The generic webhook's body: one alert, `{fingerprint, status, labels, annotations?, group?}`. */
export function parseWebhookNotice(source: string, body: unknown, now: number): ParsedNotice {
  const parsed = webhookSchema.safeParse(body);
  if (!parsed.success) return { kind: 'invalid', problems: formatIssues(parsed.error.issues) };
  const alert = parsed.data;
  return {
    kind: 'notice',
    notice: {
      source: `webhook:${source}`,
      group: alert.group ?? alert.fingerprint,
      startedBy: { kind: 'webhook', id: source },
      alerts: [
        {
          status: alert.status,
          fingerprint: alert.fingerprint,
          labels: alert.labels,
          annotations: alert.annotations ?? {},
          resolvedAt: now,
        },
      ],
    },
  };
}

/** How far a signature's timestamp may be from now, either way. */
export const SIGNATURE_TOLERANCE_S = 300;

export type SignatureCheck = { ok: true } | { ok: false; why: string };

/**
 * `X-Approvals-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(signingSecret, t + "." + body)>`,
 * the header this app signs its own webhook deliveries with. Compared in constant time.
 */
export function checkSignature(
  header: string | undefined,
  secret: string,
  body: string,
  nowMs: number,
): SignatureCheck {
  const match = header === undefined ? null : /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header);
  if (match?.[1] === undefined || match[2] === undefined) {
    return {
      ok: false,
      why: 'X-Approvals-Signature: expected "t=<unix seconds>,v1=<hex HMAC-SHA256>"',
    };
  }
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  if (!timingSafeEqual(expected, Buffer.from(match[2], 'hex'))) {
    return { ok: false, why: 'X-Approvals-Signature: the signature does not match the body' };
  }
  if (Math.abs(nowMs / 1000 - Number(match[1])) > SIGNATURE_TOLERANCE_S) {
    return {
      ok: false,
      why: `X-Approvals-Signature: the timestamp is more than ${SIGNATURE_TOLERANCE_S} s from now (stale or replayed)`,
    };
  }
  return { ok: true };
}
