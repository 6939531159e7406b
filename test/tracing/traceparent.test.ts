import { describe, expect, it } from 'vitest';
import { formatTraceparent, parseTraceparent } from '../../src/tracing/traceparent.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traceparent (W3C Trace Context)', () => {
  it('reads a version-00 header and writes it back the same', () => {
    const header = `00-${TRACE}-${SPAN}-01`;
    expect(parseTraceparent(header)).toEqual({ traceId: TRACE, spanId: SPAN, flags: 1 });
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, flags: 1 })).toBe(header);
    expect(parseTraceparent(` 00-${TRACE}-${SPAN}-00 `)?.flags).toBe(0);
  });

  it('is no trace context when malformed, all zeros, upper-case or of another layout', () => {
    for (const header of [
      undefined,
      '',
      `00-${TRACE}-${SPAN}`,
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `01-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE}x-${SPAN}-01`,
    ]) {
      expect(parseTraceparent(header), String(header)).toBeUndefined();
    }
  });
});
