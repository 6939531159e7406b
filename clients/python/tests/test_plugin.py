"""The plugin's callbacks driven with recorded ADK event JSON (test/fixtures/adk, captured from a
real ADK api_server). google-adk is not installed here: the tool context and invocation context
are plain objects with the attributes ADK gives them, and the API client is a recorder (the
client itself is tested against the running app, see clients/python/README.md)."""

import asyncio
import hashlib
import hmac
import json
import pathlib
import unittest
from types import SimpleNamespace
from unittest import mock

from adk_slack_approvals.attestation import ATTESTATION_VERSION, attestation_message, canonical_json, sha256_hex
from adk_slack_approvals.plugin import ApprovalsPlugin, slack_runner_conversation, slack_runner_thread

FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "test" / "fixtures" / "adk"
SECRET = "a-test-signing-secret-of-32-chars-or-more"


def recorded_events(name: str) -> list:
    text = (FIXTURES / f"{name}.response.txt").read_text()
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


class RecordingClient:
    """Records what the plugin asks of the service; `claimed` is the service's claim record, which
    two plugins (two processes) may share."""

    def __init__(self, claimed=None):
        self.created = []
        self.outcomes = []
        self.details = []
        self.cancelled = []
        self.decided = None
        self.claimed = set() if claimed is None else claimed

    def create_pause(self, body, idempotency_key):
        self.created.append((body, idempotency_key))
        return {"id": "p-1", "status": "pending", "gates": [], "card": {"channel": "C1", "ts": "1.0"}}

    def decision(self, pause_id, wait_s):
        return self.decided

    def report_outcome(self, pause_id, call_id, status, detail=None):
        self.outcomes.append((pause_id, call_id, status))
        self.details.append(detail)

    def claim_run(self, pause_id, call_id):
        if (pause_id, call_id) in self.claimed:
            return False
        self.claimed.add((pause_id, call_id))
        return True

    def cancel(self, pause_id, reason=None):
        self.cancelled.append((pause_id, reason))
        return {"id": pause_id, "status": "cancelled"}


def sign(pause_id, ask_id, call_id, tool, args, confirmed=True):
    fields = {
        "version": ATTESTATION_VERSION,
        "callId": ask_id,
        "originalCallId": call_id,
        "tool": tool,
        "argsSha256": sha256_hex(canonical_json(args)),
        "confirmed": confirmed,
        "payloadSha256": "",
        "expiresAt": 4_000_000_000,
    }
    message = attestation_message(pause_id, fields).encode()
    return {**fields, "signature": hmac.new(SECRET.encode(), message, hashlib.sha256).hexdigest()}


class PluginTest(unittest.TestCase):
    enforcement = "attested"

    def setUp(self):
        self.client = RecordingClient()
        self.plugin = self.new_plugin(self.client)
        self.events = recorded_events("16a_both_request")
        self.invocation = self.events[-1]["invocationId"]
        self.asks = [p["functionCall"] for p in self.events[-1]["content"]["parts"]]
        context = SimpleNamespace(
            invocation_id=self.invocation,
            app_name="hitl_agent",
            session=SimpleNamespace(app_name="hitl_agent", user_id="u1", id="s-both"),
        )
        for event in self.events:
            asyncio.run(self.plugin.on_event_callback(invocation_context=context, event=event))
        asyncio.run(self.plugin.after_run_callback(invocation_context=context))

    def new_plugin(self, client):
        return ApprovalsPlugin(
            name="approvals",
            client=client,
            environ={
                "APPROVALS_SIGNING_SECRET": SECRET,
                "APPROVALS_RESUME": "poll",
                "APPROVALS_ENFORCEMENT": self.enforcement,
            },
        )

    def call(self, index, confirmed=True, args=None, plugin=None):
        original = self.asks[index]["args"]["originalFunctionCall"]
        tool = SimpleNamespace(name=original["name"])
        context = SimpleNamespace(
            function_call_id=original["id"],
            tool_confirmation=SimpleNamespace(confirmed=confirmed, payload=None),
            actions=SimpleNamespace(requested_tool_confirmations={}),
        )
        return asyncio.run(
            (plugin or self.plugin).before_tool_callback(
                tool=tool, tool_args=args or original["args"], tool_context=context
            )
        ), tool, context

    def approve(self, index, confirmed=True, reason=None):
        original = self.asks[index]["args"]["originalFunctionCall"]
        attestation = sign(
            "p-1", self.asks[index]["id"], original["id"], original["name"], original["args"], confirmed=confirmed
        )
        gate = {"callId": self.asks[index]["id"], **({"reason": reason} if reason else {})}
        return {"id": "p-1", "gates": [gate], "attestation": {"gates": [attestation]}}

    def ran(self, tool, context, plugin=None):
        asyncio.run((plugin or self.plugin).after_tool_callback(tool=tool, tool_args={}, tool_context=context, result={}))

    def test_posts_the_two_parallel_gates_as_one_pause_once(self):
        self.assertEqual(len(self.client.created), 1)
        body, key = self.client.created[0]
        self.assertEqual(body["app"], "hitl_agent")
        self.assertEqual(body["resume"], {"mode": "poll"})
        self.assertEqual(len(body["events"]), 1)
        self.assertEqual(len(self.asks), 2)
        self.assertRegex(key, r"^[0-9a-f]{64}$")

    def test_refuses_a_confirmation_without_a_decision_and_reports_it(self):
        result, _, _ = self.call(0)
        self.assertEqual(result, {"error": "Tool call refused: no decision from the approvers was attested for this call."})
        self.assertEqual(self.client.outcomes, [("p-1", self.asks[0]["id"], "blocked")])
        # ADK keeps the refusal as the call's answer: the gate is closed, nobody approves it in vain.
        self.assertEqual(len(self.client.cancelled), 1)
        self.assertEqual(self.client.cancelled[0][0], "p-1")
        self.assertIn("answered", self.client.cancelled[0][1])

    def test_runs_an_attested_call_once_and_reports_it_executed(self):
        original = self.asks[0]["args"]["originalFunctionCall"]
        attestation = sign("p-1", self.asks[0]["id"], original["id"], original["name"], original["args"])
        self.client.decided = {"id": "p-1", "attestation": {"gates": [attestation]}}
        result, tool, context = self.call(0)
        self.assertIsNone(result)
        self.assertEqual(self.client.claimed, {("p-1", self.asks[0]["id"])})
        self.ran(tool, context)
        self.assertEqual(self.client.outcomes, [("p-1", self.asks[0]["id"], "executed")])
        again, _, _ = self.call(0)
        self.assertEqual(again, {"error": "Tool call refused: the decision was already used to run this call."})

    def test_refuses_a_decision_for_other_arguments(self):
        original = self.asks[0]["args"]["originalFunctionCall"]
        attestation = sign("p-1", self.asks[0]["id"], original["id"], original["name"], {"amount": 1})
        self.plugin.accept_decision({"id": "p-1", "attestation": {"gates": [attestation]}})
        result, _, _ = self.call(0)
        self.assertEqual(result, {"error": "Tool call refused: the decision was made for other arguments."})

    def test_a_rejection_is_reported_rejected_with_its_reason_for_the_model(self):
        self.plugin.accept_decision(self.approve(1, confirmed=False, reason="not <today>"))
        result, _, _ = self.call(1, confirmed=False)
        self.assertEqual(result, {"error": "Tool call rejected by the approvers: not <today>."})
        self.assertEqual(self.client.outcomes, [("p-1", self.asks[1]["id"], "rejected")])
        self.assertEqual(self.client.cancelled, [])

    def test_a_second_process_handed_the_same_decision_does_not_run_the_call(self):
        other = self.new_plugin(RecordingClient(claimed=self.client.claimed))
        for plugin in (self.plugin, other):
            plugin.accept_decision(self.approve(0))
        first, _, _ = self.call(0)
        second, _, _ = self.call(0, plugin=other)
        self.assertIsNone(first)
        self.assertEqual(second, {"error": "Tool call refused: another process already used the decision to run this call."})

    def test_a_claim_the_service_cannot_record_refuses_the_call(self):
        def unreachable(pause_id, call_id):
            raise ConnectionError("down")

        self.client.claim_run = unreachable
        self.plugin.accept_decision(self.approve(0))
        result, _, _ = self.call(0)
        self.assertEqual(
            result, {"error": "Tool call refused: the approvals service could not record that the decision is being used."}
        )

    def test_a_tool_that_asks_again_once_resumed_is_reported_failed_not_executed(self):
        self.plugin.accept_decision(self.approve(0))
        result, tool, context = self.call(0)
        self.assertIsNone(result)
        context.actions.requested_tool_confirmations[context.function_call_id] = {"hint": "again?"}
        self.ran(tool, context)
        self.assertEqual(self.client.outcomes, [("p-1", self.asks[0]["id"], "failed")])
        self.assertIn("another confirmation", self.client.details[0])

    def test_the_first_pass_without_a_confirmation_is_left_to_the_tool(self):
        context = SimpleNamespace(function_call_id="adk-x", tool_confirmation=None)
        result = asyncio.run(
            self.plugin.before_tool_callback(tool=SimpleNamespace(name="t"), tool_args={}, tool_context=context)
        )
        self.assertIsNone(result)


class OutcomesInEveryModeTest(unittest.TestCase):
    """`deny-only` and `off` run a confirmed call without an attestation, and still report how a
    call tied to a posted gate ended."""

    def test_deny_only_and_off_report_executed_and_rejected(self):
        for mode in ("deny-only", "off"):
            with self.subTest(mode=mode):
                case = PluginTest()
                case.enforcement = mode
                case.setUp()
                result, tool, context = case.call(0)
                self.assertIsNone(result)
                case.ran(tool, context)
                self.assertEqual(case.client.outcomes, [("p-1", case.asks[0]["id"], "executed")])
                # Nobody checked the confirmation: the card (and the service, closing a gate
                # nobody decided) is told which enforcement let it through.
                self.assertEqual(case.client.details, [f"the plugin's enforcement is {mode}"])
        case = PluginTest()
        case.enforcement = "deny-only"
        case.setUp()
        result, _, _ = case.call(1, confirmed=False)
        self.assertEqual(result, {"error": "Tool call rejected by the approvers."})
        self.assertEqual(case.client.outcomes, [("p-1", case.asks[1]["id"], "rejected")])

    def test_off_reports_a_no_rejected_never_executed_and_leaves_it_to_adk(self):
        case = PluginTest()
        case.enforcement = "off"
        case.setUp()
        case.plugin.accept_decision(case.approve(1, confirmed=False, reason="not today"))
        result, tool, context = case.call(1, confirmed=False)
        # ADK answers the no itself (its tool never runs); the plugin only tells the card.
        self.assertIsNone(result)
        case.ran(tool, context)
        self.assertEqual(case.client.outcomes, [("p-1", case.asks[1]["id"], "rejected")])
        self.assertEqual(case.client.details, ["reason: not today"])
        self.assertEqual(case.client.cancelled, [])


class SlackRunnerThreadTest(unittest.TestCase):
    """A session ADK's SlackRunner started (`<channel>-<thread ts>`) posts its card in that thread."""

    def post(self, session_id, environ=None):
        client = RecordingClient()
        plugin = ApprovalsPlugin(
            name="approvals",
            client=client,
            environ={
                "APPROVALS_SIGNING_SECRET": SECRET,
                "APPROVALS_RESUME": "poll",
                "APPROVALS_CHANNEL": "C0CONFIGURED",
                "APPROVALS_THREAD": "slack-runner",
                **(environ or {}),
            },
        )
        events = recorded_events("16a_both_request")
        context = SimpleNamespace(
            invocation_id=events[-1]["invocationId"],
            app_name="hitl_agent",
            session=SimpleNamespace(app_name="hitl_agent", user_id="U0ALICE", id=session_id),
        )
        for event in events:
            asyncio.run(plugin.on_event_callback(invocation_context=context, event=event))
        asyncio.run(plugin.after_run_callback(invocation_context=context))
        return client.created[0][0]

    def test_a_channel_thread_session_posts_into_that_thread_and_not_the_configured_channel(self):
        body = self.post("C0OPS000001-1712345678_123456")
        self.assertEqual(body["thread"], {"channel": "C0OPS000001", "ts": "1712345678.123456"})
        self.assertNotIn("channel", body)

    def test_a_direct_message_or_other_session_uses_the_channel(self):
        for session_id in ("D0DM000001-1712345678_123456", "s-42"):
            body = self.post(session_id)
            self.assertNotIn("thread", body)
            self.assertEqual(body["channel"], "C0CONFIGURED")

    def test_an_unknown_thread_finder_is_refused_by_name(self):
        with self.assertRaisesRegex(ValueError, "APPROVALS_THREAD"):
            ApprovalsPlugin(client=RecordingClient(), environ={"APPROVALS_ENFORCEMENT": "off", "APPROVALS_THREAD": "x"})

    def test_the_finder_reads_slack_runner_session_ids_only(self):
        self.assertEqual(
            slack_runner_thread(SimpleNamespace(id="G0PRIV-1_2")), {"channel": "G0PRIV", "ts": "1.2"}
        )
        self.assertIsNone(slack_runner_thread(SimpleNamespace(id="C0OPS000001")))

    def test_the_finder_reads_the_first_slack_runner_session_ids_with_the_dot(self):
        # SlackRunner's first release kept the thread ts as Slack writes it.
        self.assertEqual(
            slack_runner_thread(SimpleNamespace(id="C0OPS000001-1712345678.123456")),
            {"channel": "C0OPS000001", "ts": "1712345678.123456"},
        )
        self.assertIsNone(slack_runner_thread(SimpleNamespace(id="D0DM000001-1712345678.123456")))

    def test_the_conversation_of_a_direct_message_is_where_the_runner_answers(self):
        # No card there (another app's DM), but the SlackRunner's own app says the answer there.
        for session_id in ("D0DM000001-1712345678_123456", "D0DM000001-1712345678.123456"):
            self.assertEqual(
                slack_runner_conversation(SimpleNamespace(id=session_id)),
                {"channel": "D0DM000001", "ts": "1712345678.123456"},
            )
        self.assertIsNone(slack_runner_conversation(SimpleNamespace(id="s-42")))


class MisconfiguredTest(unittest.TestCase):
    """`adk api_server --extra_plugins` logs a plugin constructor's exception and runs the agent
    without the plugin; configured from the environment, the plugin stays loaded and refuses."""

    def test_configuration_from_the_environment_that_is_wrong_stops_instead_of_raising(self):
        with mock.patch.dict("os.environ", {"APPROVALS_SIGNING_SECRET": "short"}, clear=True):
            with self.assertLogs("adk_slack_approvals", "ERROR"):
                plugin = ApprovalsPlugin(name="adk_slack_approvals.plugin.ApprovalsPlugin")
        self.assertIn("APPROVALS_SIGNING_SECRET", plugin.misconfigured)
        context = SimpleNamespace(tool_confirmation=SimpleNamespace(confirmed=True, payload=None), function_call_id="c-1")
        result = asyncio.run(
            plugin.before_tool_callback(tool=SimpleNamespace(name="transfer_money"), tool_args={}, tool_context=context)
        )
        self.assertIn("not configured (APPROVALS_SIGNING_SECRET", result["error"])

    def test_the_service_address_and_key_are_required(self):
        secret = {"APPROVALS_SIGNING_SECRET": SECRET}
        for environ, variable in (
            (secret, "APPROVALS_URL"),
            ({**secret, "APPROVALS_URL": "approvals.example.com"}, "APPROVALS_URL"),
            ({**secret, "APPROVALS_URL": "https://approvals.example.com"}, "APPROVALS_API_KEY"),
        ):
            with self.assertRaisesRegex(ValueError, variable):
                ApprovalsPlugin(environ=environ)

    def test_configuration_passed_in_code_that_is_wrong_raises(self):
        with self.assertRaisesRegex(ValueError, "APPROVALS_SIGNING_SECRET"):
            ApprovalsPlugin(environ={"APPROVALS_SIGNING_SECRET": "short"})


class PauseKindsTest(unittest.TestCase):
    """Input requests are posted for a form card; credential requests for a notice, stripped."""

    def run_events(self, name, answer=None):
        client = RecordingClient()
        if answer is not None:
            client.create_pause = lambda body, key: (client.created.append((body, key)), answer)[1]
        plugin = ApprovalsPlugin(
            name="approvals",
            client=client,
            environ={"APPROVALS_SIGNING_SECRET": SECRET, "APPROVALS_RESUME": "poll"},
        )
        events = recorded_events(name)
        invocation = events[0]["invocationId"]
        context = SimpleNamespace(
            invocation_id=invocation,
            app_name="hitl_agent",
            session=SimpleNamespace(app_name="hitl_agent", user_id="u1", id="s-kinds"),
        )
        for event in events:
            asyncio.run(plugin.on_event_callback(invocation_context=context, event=event))
        asyncio.run(plugin.after_run_callback(invocation_context=context))
        return client, plugin, invocation

    def test_an_input_request_is_posted_as_a_pause(self):
        client, plugin, invocation = self.run_events("31a_ask_me_request")
        self.assertEqual(len(client.created), 1)
        posted = json.dumps(client.created[0][0]["events"])
        self.assertIn("adk_request_input", posted)
        self.assertIn("response_schema", posted)
        self.assertEqual(plugin.posted[invocation]["id"], "p-1")

    def test_a_credential_request_is_posted_without_its_auth_config_and_named_unsupported(self):
        answer = {"status": "unsupported", "channel": "C1", "unsupported": [{"kind": "credential", "tool": "read_calendar"}]}
        client, plugin, invocation = self.run_events("30a_calendar_request", answer)
        self.assertEqual(len(client.created), 1)
        posted = json.dumps(client.created[0][0]["events"])
        self.assertIn("adk_request_credential", posted)
        self.assertNotIn("auth_config", posted)
        self.assertNotIn("authConfig", posted)
        self.assertEqual(plugin.unsupported[invocation], answer["unsupported"])
        self.assertNotIn(invocation, plugin.posted)


if __name__ == "__main__":
    unittest.main()
