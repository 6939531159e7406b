/**
 * Expiry durations as people write them: `45s`, `30m`, `2h`, `7d`, or units combined from the
 * largest down (`1h30m`). No fractions, signs or spaces; `m` is minutes (there are no months).
 */
export type DurationResult = { ok: true; ms: number } | { ok: false; error: string };

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
/** Beyond a year an expiry is a typo, and the sum stays far inside a safe integer. */
const MAX_MS = 365 * UNIT_MS.d;

export const DURATION_EXAMPLES = '45s, 30m, 2h, 7d or 1h30m';

export function parseDuration(text: string): DurationResult {
  const parts = text === '' ? null : DURATION.exec(text);
  if (!parts) return { ok: false, error: `expected a duration such as ${DURATION_EXAMPLES}` };
  const [, days, hours, minutes, seconds] = parts;
  const ms =
    Number(days ?? 0) * UNIT_MS.d +
    Number(hours ?? 0) * UNIT_MS.h +
    Number(minutes ?? 0) * UNIT_MS.m +
    Number(seconds ?? 0) * UNIT_MS.s;
  if (ms === 0) return { ok: false, error: 'expected a duration longer than zero' };
  if (ms > MAX_MS) return { ok: false, error: 'expected a duration of at most 365d' };
  return { ok: true, ms };
}

/** `90000` → `1m30s`: a duration as the policy file writes it (whole seconds; less: `ms`). */
export function formatDuration(ms: number): string {
  let rest = ms;
  let text = '';
  for (const [unit, size] of Object.entries(UNIT_MS)) {
    const count = Math.floor(rest / size);
    if (count > 0) text += `${count}${unit}`;
    rest -= count * size;
  }
  return text === '' ? `${ms}ms` : text;
}
