"""What the plugin does with a tool call that carries a confirmation (the TypeScript plugin's
rules, see packages/adk-approvals/src/enforcement.ts): `attested` runs it only on a decision the
service signed for this call id, tool, exact arguments and answer; `deny-only` refuses any deny;
`off` leaves ADK's behaviour."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional, Tuple

from .attestation import canonical_json, payload_sha256, sha256_hex, verify_attestation

REFUSAL_MESSAGES = {
    "no_decision": "no decision from the approvers was attested for this call",
    "denied": "the approvers rejected this call",
    "bad_signature": "the decision is not signed by the approvals service",
    "expired": "the decision has expired",
    "tool_mismatch": "the decision was made for another tool",
    "arguments_mismatch": "the decision was made for other arguments",
    "answer_mismatch": "the confirmation differs from the decision",
    "already_used": "the decision was already used to run this call",
    "arguments_not_json": "the call arguments are not JSON",
    "claimed_elsewhere": "another process already used the decision to run this call",
    "claim_unavailable": "the approvals service could not record that the decision is being used",
}


@dataclass(frozen=True)
class Verdict:
    run: bool
    reason: Optional[str] = None
    # (pause id, confirmation call id) the verdict is about, when known.
    pause: Optional[Tuple[str, str]] = None


def judge_confirmed_call(
    *,
    mode: str,
    call_id: str,
    tool: str,
    args: Any,
    confirmed: bool,
    payload: Any,
    decisions: Iterable[Tuple[str, dict]],
    secret: str,
    now: int,
    used: bool,
) -> Verdict:
    if mode == "off":
        return Verdict(run=True)
    if mode == "deny-only":
        return Verdict(run=True) if confirmed else Verdict(run=False, reason="denied")
    try:
        args_sha = sha256_hex(canonical_json(args))
    except TypeError:
        return Verdict(run=False, reason="arguments_not_json")
    first: Optional[Verdict] = None
    for pause_id, attestation in decisions:
        if attestation.get("originalCallId") != call_id:
            continue
        pause = (pause_id, attestation.get("callId", ""))
        verdict = _judge_one(pause_id, attestation, pause, tool, args_sha, confirmed, payload, secret, now, used)
        if verdict.run:
            return verdict
        first = first or verdict
    return first or Verdict(run=False, reason="no_decision")


def _judge_one(pause_id, attestation, pause, tool, args_sha, confirmed, payload, secret, now, used) -> Verdict:
    def refuse(reason: str) -> Verdict:
        return Verdict(run=False, reason=reason, pause=pause)

    if not verify_attestation(secret, pause_id, attestation):
        return refuse("bad_signature")
    if attestation["expiresAt"] <= now:
        return refuse("expired")
    if attestation["tool"] != tool:
        return refuse("tool_mismatch")
    if attestation["argsSha256"] != args_sha:
        return refuse("arguments_mismatch")
    if not attestation["confirmed"]:
        return refuse("denied")
    if not confirmed or attestation["payloadSha256"] != payload_sha256(payload):
        return refuse("answer_mismatch")
    if used:
        return refuse("already_used")
    return Verdict(run=True, pause=pause)
