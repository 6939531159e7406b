"""App `py_payments_resumable`: `py_payments` as a resumable ADK app (an `App` with
`ResumabilityConfig(is_resumable=True)`), which accepts the `invocationId` of the paused
invocation on resume."""

from google.adk.apps.app import App, ResumabilityConfig
from py_payments.agent import payments_agent

app = App(
    name="py_payments_resumable",
    root_agent=payments_agent("py_payments_resumable"),
    resumability_config=ResumabilityConfig(is_resumable=True),
)
