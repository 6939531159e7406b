import { describe, expect, it } from 'vitest';
import { AdkError } from '../../src/adk/errors.js';
import { readSseFrames, type SseFrame, SseParser } from '../../src/adk/sse.js';
import { loadCapture } from './capture.js';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Parses the chunks in order, as a network would deliver them. */
function parse(chunks: readonly Uint8Array[], maxFrameSize?: number): SseFrame[] {
  const parser = new SseParser(maxFrameSize === undefined ? {} : { maxFrameSize });
  const frames = chunks.flatMap((chunk) => parser.push(chunk));
  return [...frames, ...parser.end()];
}

const parseText = (text: string) => parse([bytes(text)]);

function splitAt(data: Uint8Array, ...positions: number[]): Uint8Array[] {
  const cuts = [0, ...positions, data.length];
  return cuts.slice(1).map((end, i) => data.subarray(cuts[i], end));
}

describe('SseParser on real captures', () => {
  it.each([
    '10a_transfer_request',
    '13b_vacation_approve_with_payload_streaming',
    '16a_both_request',
  ])('gives the same frames of %s whichever byte the stream is cut at', (name) => {
    const capture = loadCapture(name);
    const body = new Uint8Array(capture.response.body);
    const expected = capture.frames().map((data) => ({ data }));
    expect(parse([body])).toEqual(expected);
    for (let cut = 0; cut <= body.length; cut++) {
      expect(parse(splitAt(body, cut))).toEqual(expected);
    }
  });

  it('gives the same frames when every byte arrives alone', () => {
    const capture = loadCapture('16a_both_request');
    const body = new Uint8Array(capture.response.body);
    const oneByOne = Array.from(body, (_, i) => body.subarray(i, i + 1));
    expect(parse(oneByOne)).toEqual(capture.frames().map((data) => ({ data })));
  });
});

describe('SseParser', () => {
  it('decodes multi-byte characters cut anywhere between chunks', () => {
    const text = 'data: {"text":"Zahlung 250 € für Ana 👍 — ok"}\n\ndata: {"text":"ß"}\n\n';
    const body = bytes(text);
    const expected = [
      { data: '{"text":"Zahlung 250 € für Ana 👍 — ok"}' },
      { data: '{"text":"ß"}' },
    ];
    for (let a = 0; a <= body.length; a++) {
      for (let b = a; b <= body.length; b += 7) {
        expect(parse(splitAt(body, a, b))).toEqual(expected);
      }
    }
  });

  it('accepts CRLF and CR line endings, also with CR and LF in different chunks', () => {
    expect(parseText('data: a\r\n\r\ndata: b\r\rdata: c\n\n')).toEqual([
      { data: 'a' },
      { data: 'b' },
      { data: 'c' },
    ]);
    expect(parse([bytes('data: a\r'), bytes('\ndata: b\r'), bytes('\n\r'), bytes('\n')])).toEqual([
      { data: 'a\nb' },
    ]);
    // A chunk that decodes to nothing between the CR and the LF changes nothing.
    expect(parse([bytes('data: a\r'), new Uint8Array(0), bytes('\ndata: b\n\n')])).toEqual([
      { data: 'a\nb' },
    ]);
  });

  it('joins multi-line data with newlines and skips comment lines', () => {
    expect(parseText(': keep-alive\n\ndata: first\n: note\ndata: second\ndata\n\n')).toEqual([
      { data: 'first\nsecond\n' },
    ]);
  });

  it('reads event, id and retry fields, and removes one space after the colon only', () => {
    expect(
      parseText(
        'event: update\nid: 7\nretry: 1500\ndata:  two spaces\nunknown: x\n\ndata:nospace\n\n',
      ),
    ).toEqual([
      { event: 'update', id: '7', retry: 1500, data: ' two spaces' },
      { data: 'nospace' },
    ]);
    expect(parseText('retry: soon\nid: a\0b\ndata: x\n\n')).toEqual([{ data: 'x' }]);
  });

  it('delivers a last frame that has no closing blank line', () => {
    expect(parseText('data: one\n\ndata: last')).toEqual([{ data: 'one' }, { data: 'last' }]);
    expect(parseText('data: one\n\ndata: last\n')).toEqual([{ data: 'one' }, { data: 'last' }]);
  });

  it('ignores a byte-order mark and frames without data', () => {
    expect(
      parse([new Uint8Array([0xef, 0xbb, 0xbf]), bytes('event: ping\n\ndata: x\n\n')]),
    ).toEqual([{ data: 'x' }]);
  });

  it('refuses a frame larger than the limit instead of buffering it', () => {
    const big = `data: ${'x'.repeat(2_000)}\n\n`;
    expect(() => parseText(big)).not.toThrow();
    expect(() => parse([bytes(big)], 1_000)).toThrow(AdkError);
    expect(() => parse([bytes(big)], 1_000)).toThrow(/larger than the limit of 1000/);
    // Also when the frame comes as many small lines, or as one line without an end yet.
    const lines = 'data: 0123456789\n'.repeat(200);
    expect(() => parse([bytes(lines)], 1_000)).toThrow(
      expect.objectContaining({ reason: 'protocol' }),
    );
    const parser = new SseParser({ maxFrameSize: 1_000 });
    expect(() => {
      for (let i = 0; i < 200; i++) parser.push(bytes('0123456789'));
    }).toThrow(AdkError);
  });

  it('counts the limit per frame, not per stream', () => {
    const frame = `data: ${'y'.repeat(500)}\n\n`;
    expect(parse([bytes(frame.repeat(100))], 1_000)).toHaveLength(100);
  });
});

describe('readSseFrames', () => {
  it('reads frames from an async byte stream', async () => {
    async function* body() {
      yield bytes('data: {"a":');
      yield bytes('1}\n\nda');
      yield bytes('ta: {"b":2}');
    }
    const frames: SseFrame[] = [];
    for await (const frame of readSseFrames(body())) frames.push(frame);
    expect(frames).toEqual([{ data: '{"a":1}' }, { data: '{"b":2}' }]);
  });
});
