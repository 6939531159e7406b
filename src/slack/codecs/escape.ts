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
const ONE_INVISIBLE = new RegExp(`^${INVISIBLE_CLASS}$`);
const REVEALED_WIDTH = '⟨U+0000⟩'.length;

/**
 * Unicode tag characters (U+E0000–U+E007F, each a surrogate pair `\uDB40` + `\uDC00`–`\uDC7F`)
 * draw nothing, yet those from U+E0020 to U+E007E spell ASCII that a model reads: a way to hide
 * instructions or arguments from the person approving. A run of them is shown as the text it
 * spells, `⟨hidden text: …⟩`; the others (the language tag, the cancel tag) by name
 * (`⟨U+E007F⟩`). The three emoji flags made of tags (England, Scotland, Wales: their letters are
 * fixed, so they hide nothing) stay flags.
 */
const TAG = '\\uDB40[\\uDC00-\\uDC7F]';
const TAG_BASE = 0xe0000;
const SUBDIVISION_FLAGS = ['gbeng', 'gbsct', 'gbwls'].map(
  (region) =>
    `\u{1F3F4}${[...region].map((letter) => String.fromCodePoint(TAG_BASE + letter.charCodeAt(0))).join('')}\u{E007F}`,
);
const HIDDEN_OPEN = '⟨hidden text: ';
const HIDDEN_CLOSE = '⟩';
const REVEALED_TAG_WIDTH = '⟨U+E0000⟩'.length;
const DISGUISES = new RegExp(`${SUBDIVISION_FLAGS.join('|')}|(?:${TAG})+|${INVISIBLE_CLASS}`, 'g');

/** What a tag character spells, if it spells anything (U+E0020–U+E007E: ASCII). */
function spelled(codePoint: number): string | undefined {
  const ascii = codePoint - TAG_BASE;
  if (ascii < 0x20 || ascii > 0x7e) return undefined;
  // A backtick would end the inline code or fence the text is shown in.
  return ascii === 0x60 ? 'ˋ' : String.fromCharCode(ascii);
}

function named(codePoint: number): string {
  return `⟨U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

function revealTags(run: string): string {
  let shown = '';
  let hidden = '';
  for (const char of run) {
    const codePoint = char.codePointAt(0) ?? 0;
    const letter = spelled(codePoint);
    if (letter !== undefined) {
      hidden += letter;
      continue;
    }
    if (hidden !== '') shown += `${HIDDEN_OPEN}${hidden}${HIDDEN_CLOSE}`;
    hidden = '';
    shown += named(codePoint);
  }
  return hidden === '' ? shown : `${shown}${HIDDEN_OPEN}${hidden}${HIDDEN_CLOSE}`;
}

/**
 * Every bidi control and zero-width character named visibly (`⟨U+202E⟩`), and every run of tag
 * characters shown as what it spells (`⟨hidden text: …⟩`).
 */
export function revealInvisible(raw: string): string {
  return raw.replace(DISGUISES, (found) => {
    if (SUBDIVISION_FLAGS.includes(found)) return found;
    if (found.charCodeAt(0) === 0xdb40) return revealTags(found);
    return named(found.charCodeAt(0));
  });
}

/**
 * The characters that hide or reorder text, and only those, taken out: bidi controls and tag
 * characters (the three tag flags kept). For text no renderer revealed, on its way out to Slack
 * (`WebApiSlackPort`): taking out never lengthens it past a limit the renderer kept to.
 */
const HIDING = new RegExp(
  `(${SUBDIVISION_FLAGS.join('|')})|${TAG}|[\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]`,
  'g',
);
export function stripHiding(text: string): string {
  return text.replace(HIDING, (_found, flag: string | undefined) => flag ?? '');
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

/** Entities only: what one UTF-16 unit becomes in `escapeEntities`. */
function entityWidth(unit: number): number {
  if (unit === 0x26) return 5; // & → &amp;
  if (unit === 0x3c || unit === 0x3e) return 4; // < → &lt;, > → &gt;
  return 1;
}

/**
 * The next piece of `raw` at `index` that escaping turns into one thing (a unit, a tag
 * character, a tag flag), its length in units, its width once escaped, and whether it spells
 * a letter of hidden text (the next such letter then adds only its own width).
 */
function pieceAt(
  raw: string,
  index: number,
  reveal: boolean,
  inHiddenText: boolean,
): { units: number; width: number; spells: boolean } {
  const unit = raw.charCodeAt(index);
  if (!reveal) return { units: 1, width: entityWidth(unit), spells: false };
  if (unit === 0xdb40) {
    const next = raw.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdc7f) {
      const letter = spelled(TAG_BASE + next - 0xdc00);
      if (letter === undefined) return { units: 2, width: REVEALED_TAG_WIDTH, spells: false };
      const frame = inHiddenText ? 0 : HIDDEN_OPEN.length + HIDDEN_CLOSE.length;
      return { units: 2, width: frame + entityWidth(letter.charCodeAt(0)), spells: true };
    }
  }
  if (unit === 0xd83c) {
    const flag = SUBDIVISION_FLAGS.find((candidate) => raw.startsWith(candidate, index));
    if (flag !== undefined) return { units: flag.length, width: flag.length, spells: false };
  }
  const width = ONE_INVISIBLE.test(raw.charAt(index)) ? REVEALED_WIDTH : entityWidth(unit);
  return { units: 1, width, spells: false };
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
  let inHiddenText = false;
  while (fits < raw.length) {
    const piece = pieceAt(raw, fits, reveal, inHiddenText);
    if (length + piece.width > max) break;
    length += piece.width;
    fits += piece.units;
    inHiddenText = piece.spells;
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
