import { describe, expect, it } from 'vitest';
import {
  codeBlock,
  cutNote,
  escapeLine,
  escapeMrkdwn,
  escapeWithin,
  fitEscaped,
  inlineCode,
  stripHiding,
} from '../../../src/slack/codecs/escape.js';
import { randomText, seeded } from '../random.js';

/** `text` in invisible tag characters (U+E0000 + each ASCII code). */
function tags(text: string): string {
  return [...text].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
}
const WALES = `\u{1F3F4}${tags('gbwls')}\u{E007F}`;
const ENGLAND = `\u{1F3F4}${tags('gbeng')}\u{E007F}`;

describe('escapeMrkdwn', () => {
  it('turns mentions, broadcasts and disguised links into inert text', () => {
    expect(escapeMrkdwn('<!channel> <@U123> <https://evil.example|https://bank.example>')).toBe(
      '&lt;!channel&gt; &lt;@U123&gt; &lt;https://evil.example|https://bank.example&gt;',
    );
  });

  it('escapes & first, so an entity in the input stays visible as typed', () => {
    expect(escapeMrkdwn('&amp; & <')).toBe('&amp;amp; &amp; &lt;');
  });

  it('names bidi controls and zero-width characters visibly, so they cannot disguise the text', () => {
    expect(escapeMrkdwn('DE00\u202E1234\u202C5678')).toBe('DE00⟨U+202E⟩1234⟨U+202C⟩5678');
    expect(escapeMrkdwn('a\u200Bb\u2066c\u2069d\uFEFFe\u200Ff')).toBe(
      'a⟨U+200B⟩b⟨U+2066⟩c⟨U+2069⟩d⟨U+FEFF⟩e⟨U+200F⟩f',
    );
  });

  it('shows text spelled in invisible tag characters, escaped, and names the tags that spell nothing', () => {
    expect(escapeMrkdwn(`pay bob${tags('and alice')}.`)).toBe('pay bob⟨hidden text: and alice⟩.');
    expect(escapeMrkdwn(`x${tags('<!here> & ')}\u{E0001}${tags('en')}\u{E007F}`)).toBe(
      'x⟨hidden text: &lt;!here&gt; &amp; ⟩⟨U+E0001⟩⟨hidden text: en⟩⟨U+E007F⟩',
    );
  });

  it('keeps the three emoji flags spelled with tags, and reveals any other tag sequence after a flag', () => {
    expect(escapeMrkdwn(`${WALES} ${ENGLAND}`)).toBe(`${WALES} ${ENGLAND}`);
    expect(escapeMrkdwn(`\u{1F3F4}${tags('usca')}\u{E007F}`)).toBe(
      '\u{1F3F4}⟨hidden text: usca⟩⟨U+E007F⟩',
    );
  });

  it('keeps the joiners that emoji sequences and scripts need', () => {
    expect(escapeMrkdwn('👩\u200D👧 می\u200Cخواهم')).toBe('👩\u200D👧 می\u200Cخواهم');
  });

  it('leaves everything else alone', () => {
    expect(escapeMrkdwn('*bold* _it_ "q" \'s\' 漢字 😀')).toBe('*bold* _it_ "q" \'s\' 漢字 😀');
  });
});

describe('stripHiding', () => {
  it('takes out bidi controls, marks and tag characters, and nothing else', () => {
    expect(stripHiding(`DE00\u202E1234\u202C5678 a\u200Eb\u061Cc\u2067d${tags('hidden')}`)).toBe(
      'DE0012345678 abcd',
    );
    expect(stripHiding(`${WALES} 👩\u200D👧 a\u200Bb ⟨U+202E⟩`)).toBe(
      `${WALES} 👩\u200D👧 a\u200Bb ⟨U+202E⟩`,
    );
  });
});

describe('fitEscaped', () => {
  it('counts a revealed character at its shown width, and never cuts inside it', () => {
    const fitted = fitEscaped('ab\u202Ecd', 6);
    expect(fitted).toMatchObject({ text: 'ab', cut: true, consumed: 2 });
    expect(fitEscaped('ab\u202Ecd', 12).text).toBe('ab⟨U+202E⟩cd');
  });

  it('counts hidden text at its shown width, and never cuts inside a tag flag', () => {
    const raw = `ab${tags('cd')}`;
    const whole = escapeMrkdwn(raw);
    expect(fitEscaped(raw, whole.length)).toMatchObject({ text: whole, cut: false });
    expect(fitEscaped(raw, whole.length - 1)).toMatchObject({ cut: true });
    expect(fitEscaped(raw, whole.length - 1).text.length).toBeLessThan(whole.length);
    expect(fitEscaped(`a${WALES}`, WALES.length).text).toBe('a');
    expect(fitEscaped(`a${WALES}`, WALES.length + 1).text).toBe(`a${WALES}`);
  });

  it('cuts a long run of tags between tags, still showing what it spells', () => {
    const raw = `a${tags('x'.repeat(200))}`;
    const fitted = fitEscaped(raw, 60);
    expect(fitted.text.length).toBeLessThanOrEqual(60);
    expect(fitted.text).toMatch(/^a⟨hidden text: x+⟩$|^$/);
    expect(fitted.text).toBe(escapeMrkdwn(raw.slice(0, fitted.consumed)));
  });

  it('never cuts inside an entity', () => {
    const fitted = fitEscaped('a&&&', 8);
    expect(fitted.text).toBe('a&amp;');
    expect(fitted).toMatchObject({ cut: true, shown: 2, total: 4 });
  });

  it('never cuts inside a surrogate pair, an emoji sequence or a letter with its accent', () => {
    expect(fitEscaped('😀😀', 3).text).toBe('😀');
    const family = '👩‍👩‍👧‍👦';
    expect(fitEscaped(`a${family}`, family.length).text).toBe('a');
    expect(fitEscaped('e\u0301e\u0301', 3).text).toBe('e\u0301');
  });

  it('counts escaped characters against the limit and original characters in the note', () => {
    const fitted = fitEscaped('<'.repeat(10), 12);
    expect(fitted.text).toBe('&lt;&lt;&lt;');
    expect(cutNote(fitted.shown, fitted.total)).toBe('… cut: showing 3 of 10 characters');
  });

  it('stays within any limit for any text', () => {
    const random = seeded(7);
    for (let round = 0; round < 300; round += 1) {
      const raw = randomText(random, Math.floor(random() * 400));
      const max = Math.floor(random() * 200);
      const fitted = fitEscaped(raw, max);
      expect(fitted.text.length).toBeLessThanOrEqual(max);
      expect(fitted.text).toBe(escapeMrkdwn(raw).slice(0, fitted.text.length));
      expect(fitted.text).not.toMatch(/&(?!amp;|lt;|gt;)/);
      expect(fitted.text).not.toMatch(/[\uD800-\uDBFF]$/);
    }
  });
});

describe('escapeWithin', () => {
  it('says what it cut, with thousands separators', () => {
    const text = escapeWithin('x'.repeat(100_000), 3000);
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text).toMatch(/ … cut: showing 2,9\d\d of 100,000 characters$/);
  });

  it('returns short text escaped and whole', () => {
    expect(escapeWithin('a < b', 100)).toBe('a &lt; b');
  });

  it('keeps within tiny limits too', () => {
    for (const max of [1, 2, 5, 20, 50]) {
      expect(escapeWithin('y'.repeat(500), max).length).toBeLessThanOrEqual(max);
    }
  });
});

describe('codeBlock, inlineCode and escapeLine', () => {
  it('fences the text and notes the cut after the fence', () => {
    const block = codeBlock('z'.repeat(10_000), 1000);
    expect(block.length).toBeLessThanOrEqual(1000);
    expect(block).toMatch(/^```\nz+\n```\n… cut: showing \d+ of 10,000 characters$/);
  });

  it('keeps a run of backticks in the text from closing the fence', () => {
    const block = codeBlock('a```b', 100);
    expect(block.slice(3, -3)).not.toContain('```');
  });

  it("reveals the text's own invisible characters in a code block, and only the fence guard stays hidden", () => {
    expect(codeBlock('a\u202E\u200B``b', 100)).toBe('```\na⟨U+202E⟩⟨U+200B⟩`\u200b`b\n```');
  });

  it('shows a name as one line of inline code that nothing can break out of', () => {
    expect(inlineCode('evil`name\n<!here>', 80)).toBe('`evilˋname &lt;!here&gt;`');
    expect(inlineCode(`run${tags('`*x*`')}`, 80)).toBe('`run⟨hidden text: ˋ*x*ˋ⟩`');
    expect(inlineCode('n'.repeat(200), 40)).toHaveLength(40);
  });

  it('makes a single line and marks a cut with an ellipsis', () => {
    expect(escapeLine('a\r\n  b', 10)).toBe('a b');
    expect(escapeLine('abcdef', 4)).toBe('abc…');
  });
});
