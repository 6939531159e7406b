/**
 * Untrusted text on its way into Slack: escaping, and truncation that counts what Slack counts
 * (the escaped string) and says what it cut.
 */

/**
 * Bidi controls and zero-width characters: invisible, yet they change what a reader sees —
 * `DE00\u202E1234\u202C5678` displays as `DE0043215678`. Each is shown by name instead
 * (`⟨U+202E⟩`). Zero-width (non-)joiners stay: emoji sequences and Indic and Persian scripts need
 * them, and they cannot reorder text. Every one of these is a single UTF-16 unit.
 */
const INVISIBLE_CLASS =
  '[\\u061c\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff]';
const INVISIBLE = new RegExp(INVISIBLE_CLASS, 'g');
const ONE_INVISIBLE = new RegExp(`^${INVISIBLE_CLASS}$`);
const REVEALED_WIDTH = '⟨U+0000⟩'.length;

function isInvisible(unit: number): boolean {
  return ONE_INVISIBLE.test(String.fromCharCode(unit));
}

/** Every bidi control and zero-width character named visibly: `⟨U+202E⟩`. */
export function revealInvisible(raw: string): string {
  return raw.replace(
    INVISIBLE,
    (char) => `⟨U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}

/**
 * Slack parses `&`, `<` and `>` in text objects, and only those: escaping them makes every
 * mention, broadcast and link syntax (`<!channel>`, `<@U1>`, `<https://x|y>`) inert text.
 * `&` goes first so the other entities are not escaped twice. Invisible characters that could
 * disguise the text are revealed (`revealInvisible`).
 */
export function escapeMrkdwn(raw: string): string {
  return escapeEntities(revealInvisible(raw));
}

function escapeEntities(raw: string): string {
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
/** How far around a cut to look for the grapheme boundary before it. */
const LOOKAHEAD = 64;

/** Characters as a reader counts them (code points, not UTF-16 units). */
export function codePoints(text: string): number {
  let pairs = 0;
  for (let index = 0; index < text.length - 1; index += 1) {
    const unit = text.charCodeAt(index);
    if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(index + 1))) {
      pairs += 1;
      index += 1;
    }
  }
  return text.length - pairs;
}

/** What one UTF-16 unit of the original becomes once escaped. */
function escapedWidth(unit: number, reveal: boolean): number {
  if (unit === 0x26) return 5; // & → &amp;
  if (unit === 0x3c || unit === 0x3e) return 4; // < → &lt;, > → &gt;
  if (reveal && isInvisible(unit)) return REVEALED_WIDTH;
  return 1;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * The last grapheme boundary at or before `at`. Only a window before `at` is segmented
 * (segmenting all of a 100 kB string per card would cost milliseconds); a cluster longer than
 * the window is cut at the window's start, still between code points.
 */
function graphemeBoundary(raw: string, at: number): number {
  const start = Math.max(0, at - LOOKAHEAD);
  let boundary = start;
  for (const { index } of graphemes.segment(raw.slice(start, at + LOOKAHEAD))) {
    if (start + index > at) break;
    boundary = start + index;
  }
  if (boundary > 0 && isHighSurrogate(raw.charCodeAt(boundary - 1))) boundary -= 1;
  return boundary;
}

/**
 * Escapes `raw` and keeps as much of it as fits in `max` characters. Cuts fall between grapheme
 * clusters of the original: never inside an entity (`&amp;`), a surrogate pair, an emoji
 * sequence or a letter with its combining marks.
 */
export function fitEscaped(raw: string, max: number, { reveal = true } = {}): Fitted {
  const escapeText = reveal ? escapeMrkdwn : escapeEntities;
  // Escaping never shortens text: longer than `max` before escaping means it will be cut.
  if (raw.length <= max) {
    const escaped = escapeText(raw);
    if (escaped.length <= max) {
      const total = codePoints(raw);
      return { text: escaped, cut: false, shown: total, total, consumed: raw.length };
    }
  }
  let length = 0;
  let fits = 0;
  while (fits < raw.length) {
    const width = escapedWidth(raw.charCodeAt(fits), reveal);
    if (length + width > max) break;
    length += width;
    fits += 1;
  }
  const consumed = graphemeBoundary(raw, fits);
  const kept = raw.slice(0, consumed);
  return {
    text: escapeText(kept),
    cut: true,
    shown: codePoints(kept),
    total: codePoints(raw),
    consumed,
  };
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
 * space is put between consecutive backticks — after the content's own invisible characters are
 * revealed, so that only the app's own stays invisible.
 */
export function codeBlock(raw: string, max: number): string {
  const fence = '```';
  const content = revealInvisible(raw).replace(/`(?=`)/g, '`\u200b');
  const frame = fence.length * 2 + 2;
  const whole = fitEscaped(content, max - frame, { reveal: false });
  if (!whole.cut) return `${fence}\n${whole.text}\n${fence}`;
  const note = cutNote(whole.total, whole.total);
  const part = fitEscaped(content, Math.max(0, max - frame - note.length - 1), { reveal: false });
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
