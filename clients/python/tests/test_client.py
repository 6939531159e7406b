"""The client's reading of the answers the service documents (docs/api.md), served at the HTTP
boundary by a local stdlib server that answers as the app does. The client against the running app
itself: test/e2e/python-client.test.ts."""

import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from adk_slack_approvals.client import ApprovalsApiError, ApprovalsClient

HOLD_UNTIL = "2031-05-04T10:00:03.000Z"
HELD = {"id": "p-1", "status": "held", "holdUntil": HOLD_UNTIL}
PENDING = {"id": "p-1", "status": "pending"}
DECIDED = {"id": "p-1", "status": "decided", "gates": [{"callId": "c-1", "confirmed": True}]}


class Service:
    """Answers each path with the next of its scripted (status, body) answers, the last one again
    once they run out, and counts the requests."""

    def __init__(self, answers):
        self.answers = {path: list(script) for path, script in answers.items()}
        self.requests = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                path = self.path.split("?")[0]
                service.requests.append(path)
                script = service.answers[path]
                status, body = script.pop(0) if len(script) > 1 else script[0]
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = _answer
            do_POST = _answer

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class HeldDecisionTest(unittest.TestCase):
    """An undo window holds the decision (`202 {"status": "held", "holdUntil"}`): not a decision,
    and not an error either. The agent keeps waiting; it never resumes on it."""

    def serve(self, answers):
        service = Service(answers)
        self.addCleanup(service.close)
        return service, ApprovalsClient(service.url, "key", attempts=1)

    def test_a_held_decision_reads_as_nothing_to_act_on_yet(self):
        _, client = self.serve({"/v1/pauses/p-1/decision": [(202, HELD)]})
        self.assertIsNone(client.decision("p-1"))

    def test_waiting_goes_on_through_held_and_pending_answers_until_the_decision(self):
        service, client = self.serve(
            {"/v1/pauses/p-1/decision": [(202, HELD), (202, HELD), (202, PENDING), (200, DECIDED)]}
        )
        self.assertEqual(client.wait_for_decision("p-1", wait_s=1), DECIDED)
        self.assertEqual(len(service.requests), 4)

    def test_a_claim_while_the_approval_is_held_raises_rather_than_reading_as_claimed_elsewhere(self):
        held = {"error": "held", "status": "held", "holdUntil": HOLD_UNTIL, "problems": ["callId: held"]}
        _, client = self.serve({"/v1/pauses/p-1/claim": [(409, held)]})
        with self.assertRaises(ApprovalsApiError) as raised:
            client.claim_run("p-1", "c-1")
        self.assertEqual(raised.exception.status, 409)
        self.assertEqual(raised.exception.problems, ["held", "callId: held"])

    def test_a_claim_another_process_made_first_is_false(self):
        taken = {"error": "conflict", "problems": ["callId: the decision was already claimed"]}
        _, client = self.serve({"/v1/pauses/p-1/claim": [(409, taken)]})
        self.assertFalse(client.claim_run("p-1", "c-1"))


if __name__ == "__main__":
    unittest.main()
