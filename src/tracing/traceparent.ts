/**
 * W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header):
 * `00-<trace id: 32 hex>-<parent span id: 16 hex>-<flags: 2 hex>`. Parsed at the API's edge;
 * an id of all zeros, another version's layout or upper-case hex is not a trace context.
 */
export interface TraceParent {
  traceId: string;
  spanId: string;
  /** Bit 0: the caller sampled its span. */
  flags: number;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function parseTraceparent(text: string | undefined): TraceParent | undefined {
  const match = TRACEPARENT.exec(text?.trim() ?? '');
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, flags: Number.parseInt(flags, 16) };
}

export function formatTraceparent({ traceId, spanId, flags }: TraceParent): string {
  return `00-${traceId}-${spanId}-${(flags & 0xff).toString(16).padStart(2, '0')}`;
}
