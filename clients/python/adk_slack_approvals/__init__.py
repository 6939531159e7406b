"""A stdlib-only client for the adk-slack-approvals API, and an ADK plugin built on it."""

from .attestation import canonical_json, verify_attestation
from .client import ApprovalsApiError, ApprovalsClient
from .enforcement import judge_confirmed_call

__all__ = [
    "ApprovalsApiError",
    "ApprovalsClient",
    "canonical_json",
    "judge_confirmed_call",
    "verify_attestation",
]
