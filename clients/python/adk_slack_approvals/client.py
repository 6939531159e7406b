"""The approvals API over urllib (standard library only). See docs/api.md."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Optional

from .trace_context import current_traceparent


class ApprovalsApiError(Exception):
    """The API answered something the call did not expect. `problems` name fields, never values."""

    def __init__(self, status: int, problems: list[str]):
        super().__init__(f"approvals API answered {status}" + (f": {'; '.join(problems)}" if problems else ""))
        self.status = status
        self.problems = problems


class ApprovalsClient:
    """Create, read, long-poll, cancel and report on pauses.

    Requests that fail on the network or with 5xx/429 are retried with backoff: the service
    answers the same gates (and the same Idempotency-Key) with the pause it already has, so a
    retried create never posts a second card.
    """

    def __init__(self, base_url: str, api_key: str, *, attempts: int = 4, backoff_s: float = 0.25):
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._attempts = attempts
        self._backoff_s = backoff_s

    def create_pause(self, pause: dict, idempotency_key: Optional[str] = None) -> dict:
        """Posts a pause, with the active span's `traceparent`: the approval joins the agent's trace."""
        headers = {} if idempotency_key is None else {"Idempotency-Key": idempotency_key}
        traceparent = current_traceparent()
        if traceparent is not None:
            headers["traceparent"] = traceparent
        status, body = self._send("POST", "/v1/pauses", pause, headers)
        return self._expect(status, body, (200, 201))

    def read(self, pause_id: str) -> dict:
        status, body = self._send("GET", f"/v1/pauses/{_quote(pause_id)}")
        return self._expect(status, body, (200,))

    def decision(self, pause_id: str, wait_s: int = 0) -> Optional[dict]:
        """The decision, waiting up to `wait_s` (0–30) seconds; None while a gate is pending, and
        while the decision is held (`status: "held"`, until `holdUntil`: a rule's undo window, in
        which the approval may still be taken back). Neither is a decision to act on."""
        query = f"?wait={min(30, int(wait_s))}" if wait_s > 0 else ""
        status, body = self._send("GET", f"/v1/pauses/{_quote(pause_id)}/decision{query}", timeout=wait_s + 15)
        if status == 202:
            return None
        return self._expect(status, body, (200,))

    def wait_for_decision(self, pause_id: str, wait_s: int = 30) -> dict:
        while True:
            decided = self.decision(pause_id, wait_s)
            if decided is not None:
                return decided

    def cancel(self, pause_id: str, reason: Optional[str] = None) -> dict:
        payload = {} if reason is None else {"reason": reason}
        status, body = self._send("POST", f"/v1/pauses/{_quote(pause_id)}/cancel", payload)
        return self._expect(status, body, (200,))

    def claim_run(self, pause_id: str, call_id: str) -> bool:
        """Claims an approved gate's call before running it: True for the first claim across every
        process, False when another already claimed it. Raises when the service cannot say, and
        while an undo window holds the approval (it may still be taken back)."""
        status, body = self._send("POST", f"/v1/pauses/{_quote(pause_id)}/claim", {"callId": call_id})
        if status == 409 and isinstance(body, dict) and body.get("error") == "held":
            raise ApprovalsApiError(status, _problems(body))
        if status == 409:
            return False
        self._expect(status, body, (200,))
        return True

    def report_outcome(self, pause_id: str, call_id: str, status: str, detail: Optional[str] = None) -> dict:
        payload: dict[str, Any] = {"callId": call_id, "status": status}
        if detail is not None:
            payload["detail"] = detail
        code, body = self._send("POST", f"/v1/pauses/{_quote(pause_id)}/outcome", payload)
        return self._expect(code, body, (200,))

    def _send(self, method: str, path: str, payload: Any = None, headers: Optional[dict] = None, timeout: float = 15):
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request_headers = {"Authorization": f"Bearer {self._api_key}", **(headers or {})}
        if data is not None:
            request_headers["Content-Type"] = "application/json"
        last: Exception = RuntimeError("no attempt made")
        for attempt in range(self._attempts):
            if attempt:
                time.sleep(self._backoff_s * 2 ** (attempt - 1))
            request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=request_headers)
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    return response.status, _json(response.read())
            except urllib.error.HTTPError as error:
                body = _json(error.read())
                if error.code < 500 and error.code != 429:
                    return error.code, body
                last = ApprovalsApiError(error.code, _problems(body))
            except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
                last = error
        raise last

    @staticmethod
    def _expect(status: int, body: Any, ok: tuple) -> dict:
        if status not in ok or not isinstance(body, dict):
            raise ApprovalsApiError(status, _problems(body))
        return body


def _quote(pause_id: str) -> str:
    return urllib.parse.quote(pause_id, safe="")


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def _problems(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return []
    problems = body.get("problems")
    listed = [p for p in problems if isinstance(p, str)] if isinstance(problems, list) else []
    return ([body["error"]] if isinstance(body.get("error"), str) else []) + listed
