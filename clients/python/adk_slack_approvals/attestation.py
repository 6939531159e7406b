"""The attestation of a decided gate, checked offline (see docs/api.md, "Attestation").

The service signs, with HMAC-SHA256 and the API key's signing secret, a JSON array of: the
version, the pause id, the confirmation call id, the gated call id, the tool, the SHA-256 of the
canonical JSON of the arguments, confirmed, the SHA-256 of the canonical payload ("" for none)
and the expiry (unix seconds). Canonical JSON is what the service's JavaScript writes: keys
sorted, no whitespace, numbers as JavaScript prints them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from typing import Any, Mapping

ATTESTATION_VERSION = "adk-approvals/attestation/v1"


def _js_number(value: float | int) -> str:
    if isinstance(value, bool):
        raise TypeError("bool is not a number here")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return "null"  # JSON.stringify writes NaN and Infinity as null
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"
    return text


def _js_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, byte for byte what the service hashes."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return _js_number(value)
    if isinstance(value, str):
        return _js_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, Mapping):
        # JavaScript sorts keys by UTF-16 code units.
        keys = sorted(value.keys(), key=lambda key: key.encode("utf-16-be"))
        return "{" + ",".join(f"{_js_string(k)}:{canonical_json(value[k])}" for k in keys) + "}"
    raise TypeError(f"not JSON: {type(value).__name__}")


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def payload_sha256(payload: Any) -> str:
    return "" if payload is None else sha256_hex(canonical_json(payload))


def attestation_message(pause_id: str, attestation: Mapping[str, Any]) -> str:
    fields = [
        ATTESTATION_VERSION,
        pause_id,
        attestation["callId"],
        attestation["originalCallId"],
        attestation["tool"],
        attestation["argsSha256"],
        attestation["confirmed"],
        attestation["payloadSha256"],
        attestation["expiresAt"],
    ]
    return "[" + ",".join(canonical_json(field) for field in fields) + "]"


def verify_attestation(secret: str, pause_id: str, attestation: Mapping[str, Any]) -> bool:
    """Whether the service signed this attestation for this pause (constant-time comparison)."""
    if attestation.get("version") != ATTESTATION_VERSION:
        return False
    signature = attestation.get("signature")
    if not isinstance(signature, str):
        return False
    expected = hmac.new(
        secret.encode("utf-8"),
        attestation_message(pause_id, attestation).encode("utf-8"),
        hashlib.sha256,
    ).hexdigest()
    return hmac.compare_digest(expected, signature)
