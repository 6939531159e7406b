/** The pretend fleet the ops demo agent looks after. Nothing here touches a real system. */

export interface Service {
  version: string;
  replicas: number;
  health: 'healthy' | 'degraded';
  p95LatencyMs: number;
  errorRatePercent: number;
}

export const SERVICES: Readonly<Record<string, Service>> = {
  'payments-api': {
    version: '2.14.1',
    replicas: 3,
    health: 'healthy',
    p95LatencyMs: 182,
    errorRatePercent: 0.02,
  },
  ledger: {
    version: '5.3.0',
    replicas: 2,
    health: 'healthy',
    p95LatencyMs: 95,
    errorRatePercent: 0,
  },
  web: {
    version: '8.1.4',
    replicas: 4,
    health: 'healthy',
    p95LatencyMs: 240,
    errorRatePercent: 0.1,
  },
  search: {
    version: '1.9.7',
    replicas: 2,
    health: 'degraded',
    p95LatencyMs: 1450,
    errorRatePercent: 2.4,
  },
  notifications: {
    version: '3.0.2',
    replicas: 2,
    health: 'healthy',
    p95LatencyMs: 60,
    errorRatePercent: 0.01,
  },
};

export const SERVICE_NAMES = Object.keys(SERVICES);

/** Maintenance starts at 22:00 UTC, after the evening peak. */
const MAINTENANCE_HOUR_UTC = 22;

/**
 * The start of a maintenance window asked for `when`: an ISO time as it is; "tomorrow" the next
 * day at 22:00 UTC; anything else ("tonight", "later") the next 22:00 UTC.
 */
export function proposedStart(when: string, now: Date): string {
  const trimmed = when.trim();
  if (/^\d{4}-\d{2}-\d{2}T/.test(trimmed) && !Number.isNaN(Date.parse(trimmed))) {
    return new Date(trimmed).toISOString().replace('.000Z', 'Z');
  }
  const start = new Date(now);
  start.setUTCHours(MAINTENANCE_HOUR_UTC, 0, 0, 0);
  if (start <= now) start.setUTCDate(start.getUTCDate() + 1);
  if (/\btomorrow\b/i.test(trimmed) && start.getUTCDate() === now.getUTCDate()) {
    start.setUTCDate(start.getUTCDate() + 1);
  }
  return start.toISOString().replace('.000Z', 'Z');
}
