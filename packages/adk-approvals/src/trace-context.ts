import { context, isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * The W3C `traceparent` of the span active where the plugin runs (ADK's invocation or tool span,
 * when the agent's process has an OpenTelemetry SDK), so that the service's approval spans join
 * the agent's trace. Undefined without an active, valid span.
 */
export function currentTraceparent(): string | undefined {
  const span = trace.getSpanContext(context.active());
  if (span === undefined || !isSpanContextValid(span)) return undefined;
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${span.traceId}-${span.spanId}-${flags}`;
}
