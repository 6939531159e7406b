/**
 * Seeded randomness for property-style loops: a failing case reproduces from its seed.
 */

/** mulberry32: small, fast, good enough to vary test input. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces Slack treats specially, and text that is hard to cut. */
export const HOSTILE_PIECES = [
  '<!channel>',
  '<!here>',
  '<@U123>',
  '<!subteam^S42>',
  '<#C999>',
  '<https://evil.example|https://bank.example>',
  '&amp;',
  '&lt;',
  '&',
  '<',
  '>',
  '`',
  '```',
  '*',
  '_',
  '~',
  '\n',
  '\r\n',
  '\t',
  ' ',
  '😀',
  '👩‍👩‍👧‍👦',
  '🇫🇷',
  '漢字かな',
  'e\u0301',
  'Z\u0351\u0352\u0353\u0354',
  '\u202e',
  '\u200b',
  // Tag characters: a hidden "<!here> `x`", the cancel tag, the flag of Wales (spelled in tags).
  [...'<!here> `x`'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join(''),
  '\u{E007F}',
  '\u{1F3F4}\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}',
  'a',
  'plain words ',
  '"quoted"',
  '\\',
];

export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/** Roughly `length` code units of hostile and ordinary text. */
export function randomText(random: () => number, length: number): string {
  let text = '';
  while (text.length < length) text += pick(random, HOSTILE_PIECES);
  return text;
}
