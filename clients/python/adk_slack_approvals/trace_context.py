"""The W3C `traceparent` of the span active where the plugin runs, so that the service's
approval spans join the agent's trace (see docs/audit.md). google-adk brings the OpenTelemetry
API and opens an `invocation` span around each run; without the API, or without a valid span
(no SDK configured), there is nothing to send. Standard library only: the import is optional.
"""

from __future__ import annotations

from typing import Optional


def current_traceparent() -> Optional[str]:
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags) & 0xFF:02x}"
