"""An ADK plugin for `adk api_server --extra_plugins adk_slack_approvals.plugin.ApprovalsPlugin`.

Same behaviour as the TypeScript plugin (packages/adk-approvals): it collects the events of an
invocation that carry `adk_request_confirmation` and `adk_request_input` calls (and credential
requests, stripped of their auth config, for a notice), posts them as one pause after the run
(Idempotency-Key per invocation), refuses in `before_tool_callback` a confirmed call the service
did not attest for that call id and those exact arguments, claims an attested decision on the
service before running its call (single use across processes), closes a gate whose call it
refused (ADK records the refusal as the call's answer), and reports outcomes in every mode (a
call `deny-only` or `off` let through unchecked says so, and a no is reported `rejected`).

Configuration from the environment: APPROVALS_URL, APPROVALS_API_KEY, APPROVALS_SIGNING_SECRET,
APPROVALS_ENFORCEMENT (attested | deny-only | off; default attested), APPROVALS_RESUME
(poll | adk | webhook; default adk, since the app resumes an api_server it knows),
APPROVALS_ADK_TARGET, APPROVALS_WEBHOOK_URL, APPROVALS_CHANNEL, APPROVALS_TITLE, APPROVALS_THREAD
(`slack-runner`: the card goes into the Slack thread of a session ADK's SlackRunner started).
A value from the environment that is missing or wrong does not raise (ADK's --extra_plugins loader
would log it and run the agent without the plugin, unguarded): every run stops with the reason as
its answer. Passed in code (`environ=`), it raises.

google-adk is imported when present; without it the module still loads (for the tests here,
which drive the callbacks with recorded ADK event JSON).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import time
import re
from typing import Any, Awaitable, Callable, Mapping, Optional

from .client import ApprovalsApiError, ApprovalsClient
from .enforcement import REFUSAL_MESSAGES, judge_confirmed_call

try:  # pragma: no cover - depends on the environment
    from google.adk.plugins.base_plugin import BasePlugin as _BasePlugin
except ImportError:  # google-adk is not installed: a stand-in with the same constructor

    class _BasePlugin:  # type: ignore[no-redef]
        def __init__(self, name: str):
            self.name = name


log = logging.getLogger("adk_slack_approvals")
REQUEST_CONFIRMATION = "adk_request_confirmation"
REQUEST_INPUT = "adk_request_input"
REQUEST_CREDENTIAL = "adk_request_credential"
MODES = ("attested", "deny-only", "off")
ASKED_AGAIN = (
    "the tool asked for another confirmation after this approval, which the agent cannot raise as a "
    "request: it did not do what it asked about"
)


def _as_json(event: Any) -> dict:
    """An ADK event as the server emits it (camelCase JSON); recorded events are dicts already."""
    if isinstance(event, Mapping):
        return dict(event)
    return event.model_dump(mode="json", by_alias=True, exclude_none=True)


def _calls_named(event: dict, name: str) -> list[dict]:
    parts = (event.get("content") or {}).get("parts") or []
    calls = [part.get("functionCall") or part.get("function_call") for part in parts]
    return [call for call in calls if isinstance(call, dict) and call.get("name") == name]


def _confirmation_calls(event: dict) -> list[dict]:
    return _calls_named(event, REQUEST_CONFIRMATION)


def _credential_notice(event: dict) -> dict:
    """A credential request as the service needs it for its notice: the request id and the call it
    is for. The auth config (client ids, secrets, scopes) never leaves the agent."""
    parts = []
    for call in _calls_named(event, REQUEST_CREDENTIAL):
        args = call.get("args") or {}
        call_id = args.get("functionCallId") or args.get("function_call_id")
        parts.append(
            {
                "functionCall": {
                    **({"id": call["id"]} if isinstance(call.get("id"), str) else {}),
                    "name": REQUEST_CREDENTIAL,
                    "args": {"functionCallId": call_id} if isinstance(call_id, str) else {},
                }
            }
        )
    keep = ("id", "invocationId", "author", "timestamp")
    return {**{key: event[key] for key in keep if key in event}, "content": {"role": "model", "parts": parts}}


# SlackRunner's first release named sessions f"{channel}-{thread_ts}" (ts "1712345678.123456");
# later ones replace what managed session services refuse, the ".", with "_". Both are read.
_SLACK_RUNNER_SESSION = re.compile(r"([CGD][A-Z0-9]+)-(\d+)[._](\d+)")


def slack_runner_conversation(session: Any) -> Optional[dict]:
    """Where a session ADK's SlackRunner started talks (`{channel, ts}`: a channel's or a private
    channel's thread, or a direct message), read from its id `<channel>-<thread ts>` (the ts's "."
    kept or as "_", google.adk.integrations.slack). None for any other session. The SlackRunner's
    own app can answer there; for the card, see `slack_runner_thread`."""
    found = _SLACK_RUNNER_SESSION.fullmatch(getattr(session, "id", "") or "")
    return None if found is None else {"channel": found.group(1), "ts": f"{found.group(2)}.{found.group(3)}"}


def slack_runner_thread(session: Any) -> Optional[dict]:
    """The Slack thread a SlackRunner session's card goes into: its conversation, except a direct
    message (the approvals app cannot post in another app's DM), for which it is None."""
    place = slack_runner_conversation(session)
    return None if place is None or place["channel"].startswith("D") else place


THREAD_FINDERS = {"slack-runner": slack_runner_thread}


class ApprovalsPlugin(_BasePlugin):
    """`thread_of(session)`: the Slack thread (`{channel, ts}`) a pause's card goes into, or None
    for the channel (APPROVALS_THREAD names a built-in one). `on_pause_posted(pause,
    invocation_context)`: started as a task once a pause is posted (e.g. to wait for the decision
    and resume the runner, see adk_slack_approvals.resume)."""

    def __init__(
        self,
        name: str = "adk_slack_approvals",
        *,
        client: Optional[ApprovalsClient] = None,
        environ: Optional[Mapping[str, str]] = None,
        thread_of: Optional[Callable[[Any], Optional[dict]]] = None,
        on_pause_posted: Optional[Callable[[dict, Any], Awaitable[None]]] = None,
    ):
        super().__init__(name=name)
        self.thread_of = thread_of
        self.on_pause_posted = on_pause_posted
        self._tasks: set = set()
        self.enforcement = "attested"
        self.signing_secret = ""
        self.client = client
        self.resume: dict = {}
        self.extras: dict = {}
        # Why this plugin stops every run, when its configuration from the environment is wrong.
        self.misconfigured: Optional[str] = None
        try:
            self._configure(os.environ if environ is None else environ, client)
        except ValueError as error:
            if environ is not None:
                raise
            # `adk api_server --extra_plugins` logs a plugin's exception and runs the agent without
            # it, unguarded: stay loaded and stop every run instead, saying why.
            self.misconfigured = str(error)
            log.error("adk-approvals: not configured, every run of this agent is stopped: %s", error)
        self._collected: dict[str, list[dict]] = {}
        self.posted: dict[str, dict] = {}
        self.unsupported: dict[str, list] = {}
        self._asked_in: dict[str, tuple[str, str]] = {}
        self._decisions: dict[str, list[tuple[str, dict]]] = {}
        # Gated call id -> the approvers' reason for rejecting it, from a decision received.
        self._reject_reasons: dict[str, str] = {}
        self._used: set[str] = set()
        self._running: dict[str, tuple[str, str]] = {}
        # Calls `deny-only` or `off` let through on a confirmation nobody checked: the card says so.
        self._unchecked: set[str] = set()

    def _configure(self, env: Mapping[str, str], client: Optional[ApprovalsClient]) -> None:
        thread = env.get("APPROVALS_THREAD")
        if self.thread_of is None and thread:
            if thread not in THREAD_FINDERS:
                raise ValueError(f"APPROVALS_THREAD: expected one of {', '.join(THREAD_FINDERS)}")
            self.thread_of = THREAD_FINDERS[thread]
        self.enforcement = env.get("APPROVALS_ENFORCEMENT", "attested")
        if self.enforcement not in MODES:
            raise ValueError(f"APPROVALS_ENFORCEMENT: expected one of {', '.join(MODES)}")
        self.signing_secret = env.get("APPROVALS_SIGNING_SECRET", "")
        if self.enforcement == "attested" and len(self.signing_secret) < 32:
            raise ValueError("APPROVALS_SIGNING_SECRET: required (32+ characters) when enforcement is attested")
        if client is None:
            if not env.get("APPROVALS_URL", "").startswith(("http://", "https://")):
                raise ValueError("APPROVALS_URL: required, the approvals service's http(s) address")
            if not env.get("APPROVALS_API_KEY"):
                raise ValueError("APPROVALS_API_KEY: required")
            client = ApprovalsClient(env["APPROVALS_URL"], env["APPROVALS_API_KEY"])
        self.client = client
        self.resume = self._resume_from(env)
        self.extras = {
            key: env[var] for key, var in (("channel", "APPROVALS_CHANNEL"), ("title", "APPROVALS_TITLE")) if env.get(var)
        }

    async def before_run_callback(self, *, invocation_context: Any) -> Any:
        """Stops the run, with the reason as its answer, when the plugin is not configured."""
        if self.misconfigured is None:
            return None
        from google.genai import types  # google-adk's own dependency: present wherever a runner is

        text = f"This agent is stopped: its approvals plugin is not configured ({self.misconfigured})."
        return types.Content(role="model", parts=[types.Part(text=text)])

    @staticmethod
    def _resume_from(env: Mapping[str, str]) -> dict:
        mode = env.get("APPROVALS_RESUME", "adk")
        if mode == "poll":
            return {"mode": "poll"}
        if mode == "webhook":
            url = env.get("APPROVALS_WEBHOOK_URL")
            if not url:
                raise ValueError("APPROVALS_WEBHOOK_URL: required when APPROVALS_RESUME is webhook")
            return {"mode": "webhook", "url": url}
        if mode == "adk":
            target = env.get("APPROVALS_ADK_TARGET")
            return {"mode": "adk", **({"target": target} if target else {})}
        raise ValueError("APPROVALS_RESUME: expected poll, adk or webhook")

    async def on_event_callback(self, *, invocation_context: Any, event: Any) -> None:
        """Collects confirmation and input requests (cards) and credential requests (a notice)."""
        data = _as_json(event)
        if data.get("partial"):
            return None
        if _confirmation_calls(data) or _calls_named(data, REQUEST_INPUT):
            self._collected.setdefault(data.get("invocationId", ""), []).append(data)
        elif _calls_named(data, REQUEST_CREDENTIAL):
            self._collected.setdefault(data.get("invocationId", ""), []).append(_credential_notice(data))
        return None

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        invocation_id = invocation_context.invocation_id
        events = self._collected.pop(invocation_id, None)
        if not events:
            return None
        session = invocation_context.session
        app = getattr(invocation_context, "app_name", None) or session.app_name
        key = hashlib.sha256(json.dumps([app, session.user_id, session.id, invocation_id]).encode()).hexdigest()
        body = {
            "app": app,
            "userId": session.user_id,
            "sessionId": session.id,
            "events": events,
            "resume": self.resume,
            **self.extras,
        }
        thread = self.thread_of(session) if self.thread_of is not None else None
        if thread is not None:
            # The thread names the card's channel.
            body.pop("channel", None)
            body["thread"] = thread
        # Raises when the service stays unreachable: a pause nobody sees must fail loudly.
        pause = await asyncio.to_thread(self.client.create_pause, body, key)
        if pause.get("status") == "unsupported":
            # Only what nobody can answer in Slack (credentials): the service posted a notice.
            self.unsupported[invocation_id] = pause.get("unsupported") or []
            return None
        self.posted[invocation_id] = pause
        for event in events:
            for call in _confirmation_calls(event):
                original = ((call.get("args") or {}).get("originalFunctionCall") or {}).get("id")
                if isinstance(original, str) and isinstance(call.get("id"), str):
                    self._asked_in[original] = (pause["id"], call["id"])
        if self.on_pause_posted is not None:
            # Not awaited: the run that paused ends now; the task outlives it.
            task = asyncio.get_running_loop().create_task(self.on_pause_posted(pause, invocation_context))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return None

    def accept_decision(self, decision: Mapping[str, Any]) -> None:
        """A decision received by other means (a poll loop, a webhook); checked when its call runs."""
        reasons = {
            gate.get("callId"): gate["reason"]
            for gate in decision.get("gates") or []
            if isinstance(gate, dict) and isinstance(gate.get("reason"), str)
        }
        for attestation in (decision.get("attestation") or {}).get("gates") or []:
            reason = reasons.get(attestation.get("callId"))
            if reason is not None:
                self._reject_reasons[attestation.get("originalCallId", "")] = reason
            held = self._decisions.setdefault(attestation.get("originalCallId", ""), [])
            if all(a.get("signature") != attestation.get("signature") for _, a in held):
                held.append((decision["id"], attestation))

    async def before_tool_callback(self, *, tool: Any, tool_args: dict, tool_context: Any) -> Optional[dict]:
        confirmation = getattr(tool_context, "tool_confirmation", None)
        call_id = getattr(tool_context, "function_call_id", None)
        if confirmation is None or call_id is None:
            return None
        if self.misconfigured is not None:  # runs are stopped before they start; never run one anyway
            return {"error": f"Tool call refused: the approvals plugin is not configured ({self.misconfigured})."}
        if self.enforcement == "attested" and call_id not in self._decisions and call_id in self._asked_in:
            pause_id = self._asked_in[call_id][0]
            try:
                decided = await asyncio.to_thread(self.client.decision, pause_id, 0)
                if decided is not None:
                    self.accept_decision(decided)
            except Exception as error:  # noqa: BLE001 - reported, and the call is refused below
                log.warning("adk-approvals: could not read the decision of %s: %s", pause_id, type(error).__name__)
        verdict = judge_confirmed_call(
            mode=self.enforcement,
            call_id=call_id,
            tool=tool.name,
            args=tool_args,
            confirmed=getattr(confirmation, "confirmed", False) is True,
            payload=getattr(confirmation, "payload", None),
            decisions=self._decisions.get(call_id, []),
            secret=self.signing_secret,
            now=int(time.time()),
            used=call_id in self._used,
        )
        if verdict.run:
            if verdict.pause is None:
                # `deny-only` and `off`: nothing to claim, but a call tied to a posted gate still
                # gets its outcome on the card; the service closes a gate nobody decided with it.
                asked = self._asked_in.get(call_id)
                if asked is None:
                    return None
                if getattr(confirmation, "confirmed", False) is True:
                    self._running[call_id] = asked
                    self._unchecked.add(call_id)
                else:
                    # `off` leaves the no to ADK, which does not run the tool: it is a rejection.
                    await self._report_rejection(asked, call_id)
                return None
            self._used.add(call_id)
            claim = await self._claim_run(verdict.pause)
            if claim == "claimed":
                self._running[call_id] = verdict.pause
                return None
            # The process that claimed it runs it and reports its outcome; nothing is reported here.
            log.warning("adk-approvals: tool call refused: call=%s tool=%s reason=%s", call_id, tool.name, claim)
            return {"error": f"Tool call refused: {REFUSAL_MESSAGES[claim]}."}
        pause = verdict.pause or self._asked_in.get(call_id)
        if verdict.reason == "denied" and pause is not None:
            # The approvers' own rejection: not a refusal of the plugin's.
            reason = await self._report_rejection(pause, call_id)
            return {"error": f"Tool call rejected by the approvers{'' if reason is None else f': {reason}'}."}
        message = REFUSAL_MESSAGES[verdict.reason or "no_decision"]
        log.warning("adk-approvals: tool call refused: call=%s tool=%s reason=%s", call_id, tool.name, verdict.reason)
        if pause is not None:
            why = f"refused by the agent's plugin: {message}"
            await self._report(pause, "blocked", why)
            await self._close_gate(pause[0], tool.name, why)
        return {"error": f"Tool call refused: {message}."}

    async def after_tool_callback(self, *, tool: Any, tool_args: dict, tool_context: Any, result: Any) -> None:
        call_id = getattr(tool_context, "function_call_id", None)
        pause = self._running.pop(call_id, None)
        if pause is None:
            return None
        # Resumed with its approval, the tool asked again: ADK raises no request for that ask, and
        # the tool returned without doing what it asked about.
        actions = getattr(tool_context, "actions", None)
        asked_again = call_id in (getattr(actions, "requested_tool_confirmations", None) or {})
        if asked_again:
            await self._report(pause, "failed", ASKED_AGAIN)
        else:
            await self._report(pause, "executed", self._unchecked_detail(call_id))
        return None

    async def on_tool_error_callback(self, *, tool: Any, tool_args: dict, tool_context: Any, error: Exception) -> None:
        call_id = getattr(tool_context, "function_call_id", None)
        pause = self._running.pop(call_id, None)
        if pause is not None:
            # The error's type only: its message may quote the arguments.
            unchecked = self._unchecked_detail(call_id)
            detail = f"the tool raised {type(error).__name__}{'' if unchecked is None else f'; {unchecked}'}"
            await self._report(pause, "failed", detail)
        return None

    def _unchecked_detail(self, call_id: Any) -> Optional[str]:
        """Which enforcement let a call through unchecked, for the card; None for a checked one."""
        if call_id not in self._unchecked:
            return None
        self._unchecked.discard(call_id)
        return f"the plugin's enforcement is {self.enforcement}"

    async def _report_rejection(self, pause: tuple[str, str], call_id: str) -> Optional[str]:
        """Reports a call answered no; returns the approvers' reason when a decision gave one."""
        reason = self._reject_reasons.get(call_id)
        await self._report(pause, "rejected", None if reason is None else f"reason: {reason}")
        return reason

    async def _claim_run(self, pause: tuple[str, str]) -> str:
        """Single use across processes: the service's first claim of the gate runs the call."""
        try:
            claimed = await asyncio.to_thread(self.client.claim_run, pause[0], pause[1])
        except Exception as error:  # noqa: BLE001 - fail closed: the call is refused
            log.warning("adk-approvals: could not claim the decision of %s: %s", pause[0], type(error).__name__)
            return "claim_unavailable"
        return "claimed" if claimed else "claimed_elsewhere"

    async def _close_gate(self, pause_id: str, tool: str, why: str) -> None:
        """ADK records the refusal as the call's answer: the gate can never run the tool any more,
        so it is closed on the service (the card says why) rather than left for someone to approve
        in vain. A gate already decided answers 409, which changes nothing."""
        reason = f"the agent answered {tool} itself, so it can no longer be approved ({why})"
        try:
            await asyncio.to_thread(self.client.cancel, pause_id, reason)
        except ApprovalsApiError as error:
            if error.status != 409:
                log.warning("adk-approvals: could not close the refused gate %s: HTTP %s", pause_id, error.status)
        except Exception as error:  # noqa: BLE001 - the refusal stands whether or not the card is closed
            log.warning("adk-approvals: could not close the refused gate %s: %s", pause_id, type(error).__name__)

    async def _report(self, pause: tuple[str, str], status: str, detail: Optional[str] = None) -> None:
        try:
            await asyncio.to_thread(self.client.report_outcome, pause[0], pause[1], status, detail)
        except Exception as error:  # noqa: BLE001 - the outcome is for people; the tool result must not depend on it
            log.warning("adk-approvals: could not report %s for %s: %s", status, pause[0], type(error).__name__)
