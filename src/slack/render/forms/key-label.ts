/**
 * A payload key in words, for its field's label: `durationMinutes`, `duration_minutes` and
 * `duration-minutes` are all "Duration (minutes)". Tools name keys for code, approvers read words.
 */

/** Words for the common units at the end of a key. */
const UNITS = new Set([
  ...['ms', 'seconds', 'secs', 'minutes', 'mins', 'hours', 'days', 'weeks', 'months', 'years'],
  ...['percent', 'pct', 'bytes', 'kb', 'mb', 'gb', 'usd', 'eur', 'gbp', 'cents'],
]);

export function humanLabel(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter((word) => word !== '')
    .map((word) => (/^[A-Z0-9]+$/.test(word) && word.length > 1 ? word : word.toLowerCase()));
  if (words.length === 0) return key;
  const last = words.at(-1) ?? '';
  const unit = words.length > 1 && UNITS.has(last.toLowerCase()) ? last.toLowerCase() : undefined;
  const main = unit === undefined ? words : words.slice(0, -1);
  const text = main.join(' ');
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return unit === undefined ? sentence : `${sentence} (${unit})`;
}
