/**
 * Untrusted text on its way into Slack: escaping, and truncation that counts what Slack counts
 * (the escaped string) and says what it cut.
 */

/**
 * Slack parses `&`, `<` and `>` in text objects, and only those: escaping them makes every
 * mention, broadcast and link syntax (`<!channel>`, `<@U1>`, `<https://x|y>`) inert text.
 * `&` goes first so the other entities are not escaped twice.
 */
export function escapeMrkdwn(raw: string): string {
  return raw.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface Fitted {
  /** Escaped, and at most the requested length. */
  text: string;
  cut: boolean;
  /** Characters (code points) of the original shown, and in all. */
  shown: number;
  total: number;
  /** How much of the original (UTF-16 units) the text holds: `raw.slice(0, consumed)`. */
  consumed: number;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** How far past the budget to look so the last whole grapheme before it is found. */
const LOOKAHEAD = 64;

/** Characters as a reader counts them (code points, not UTF-16 units). */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * Escapes `raw` and keeps as much of it as fits in `max` characters. Cuts fall between grapheme
 * clusters of the original: never inside an entity (`&amp;`), a surrogate pair, an emoji
 * sequence or a letter with its combining marks.
 */
export function fitEscaped(raw: string, max: number): Fitted {
  const escaped = escapeMrkdwn(raw);
  if (escaped.length <= max) {
    const total = codePoints(raw);
    return { text: escaped, cut: false, shown: total, total, consumed: raw.length };
  }
  let length = 0;
  let shown = 0;
  let consumed = 0;
  const parts: string[] = [];
  // Escaping never shortens text, so no more than `max` units of the original can fit.
  for (const { segment } of graphemes.segment(raw.slice(0, Math.max(0, max) + LOOKAHEAD))) {
    const piece = escapeMrkdwn(segment);
    if (length + piece.length > max) break;
    parts.push(piece);
    length += piece.length;
    shown += codePoints(segment);
    consumed += segment.length;
  }
  return { text: parts.join(''), cut: true, shown, total: codePoints(raw), consumed };
}

const count = new Intl.NumberFormat('en-US');

/** "… cut: showing 2,980 of 100,000 characters" */
export function cutNote(shown: number, total: number): string {
  return `… cut: showing ${count.format(shown)} of ${count.format(total)} characters`;
}

/**
 * Escaped `raw` within `max` characters; when it had to be cut, the note saying so is part of
 * those `max` characters, after `separator`.
 */
export function escapeWithin(raw: string, max: number, separator = ' '): string {
  const whole = fitEscaped(raw, max);
  if (!whole.cut) return whole.text;
  // The note for "all of total" is the longest it can be; reserve that much.
  const room = max - separator.length - cutNote(whole.total, whole.total).length;
  if (room < 1) return `${fitEscaped(raw, max - 1).text}…`;
  const part = fitEscaped(raw, room);
  return `${part.text}${separator}${cutNote(part.shown, part.total)}`;
}

/** A short single line (a name, a label): line breaks become spaces, a cut ends in "…". */
export function escapeLine(raw: string, max: number): string {
  const line = raw.replace(/\s*[\r\n]+\s*/g, ' ');
  const whole = fitEscaped(line, max);
  if (!whole.cut) return whole.text;
  return `${fitEscaped(line, max - 1).text}…`;
}

/**
 * Preformatted text in a fenced code block of at most `max` characters, the cut note (if any)
 * after the fence. A run of backticks in the content would close the fence early, so a zero-width
 * space is put between consecutive backticks.
 */
export function codeBlock(raw: string, max: number): string {
  const fence = '```';
  const content = raw.replace(/`(?=`)/g, '`\u200b');
  const frame = fence.length * 2 + 2;
  const whole = fitEscaped(content, max - frame);
  if (!whole.cut) return `${fence}\n${whole.text}\n${fence}`;
  const note = cutNote(whole.total, whole.total);
  const part = fitEscaped(content, Math.max(0, max - frame - note.length - 1));
  return `${fence}\n${part.text}\n${fence}\n${cutNote(part.shown, part.total)}`;
}

/**
 * A name (tool, app) as inline code on one line. Backticks would end the code span, so they are
 * shown as the look-alike `ˋ` (U+02CB).
 */
export function inlineCode(raw: string, max: number): string {
  const name = raw.replace(/`/g, 'ˋ').replace(/[\r\n]+/g, ' ');
  const fitted = fitEscaped(name, max - 3);
  return `\`${fitted.text}${fitted.cut ? '…' : ''}\``;
}
