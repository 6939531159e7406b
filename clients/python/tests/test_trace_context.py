import sys
import types
import unittest
from unittest import mock

from adk_slack_approvals.trace_context import current_traceparent


def fake_opentelemetry(trace_id: int, span_id: int, flags: int, valid: bool) -> dict:
    """An `opentelemetry` package whose current span has this context (the real one's shape)."""
    context = types.SimpleNamespace(trace_id=trace_id, span_id=span_id, trace_flags=flags, is_valid=valid)
    span = types.SimpleNamespace(get_span_context=lambda: context)
    trace = types.ModuleType("opentelemetry.trace")
    trace.get_current_span = lambda: span
    package = types.ModuleType("opentelemetry")
    package.trace = trace
    return {"opentelemetry": package, "opentelemetry.trace": trace}


class CurrentTraceparentTest(unittest.TestCase):
    def test_writes_the_active_span_as_a_w3c_traceparent(self):
        with mock.patch.dict(sys.modules, fake_opentelemetry(0x4BF92F3577B34DA6A3CE929D0E0E4736, 0xF067AA0BA902B7, 1, True)):
            self.assertEqual(current_traceparent(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")

    def test_nothing_without_a_valid_span(self):
        with mock.patch.dict(sys.modules, fake_opentelemetry(0, 0, 0, False)):
            self.assertIsNone(current_traceparent())

    def test_nothing_without_the_opentelemetry_api(self):
        with mock.patch.dict(sys.modules, {"opentelemetry": None}):
            self.assertIsNone(current_traceparent())


if __name__ == "__main__":
    unittest.main()
