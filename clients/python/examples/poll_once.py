"""Posts one pause, waits for its decision, checks the attestation, reports an outcome.

    APPROVALS_URL=... APPROVALS_API_KEY=... APPROVALS_SIGNING_SECRET=... \
        python3 examples/poll_once.py < pause.json

Reads the body of POST /v1/pauses on stdin; prints one JSON line per step (created, decided),
which is how test/e2e/python-client.test.ts drives it against the running app.
"""

import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from adk_slack_approvals import ApprovalsClient, verify_attestation  # noqa: E402


def main() -> int:
    client = ApprovalsClient(os.environ["APPROVALS_URL"], os.environ["APPROVALS_API_KEY"])
    secret = os.environ["APPROVALS_SIGNING_SECRET"]
    body = json.load(sys.stdin)
    pause = client.create_pause(body, idempotency_key="poll-once-" + body["sessionId"])
    again = client.create_pause(body, idempotency_key="poll-once-" + body["sessionId"])
    print(json.dumps({"step": "created", "id": pause["id"], "sameIdAgain": again["id"] == pause["id"]}), flush=True)
    decision = client.wait_for_decision(pause["id"], wait_s=30)
    verified = [verify_attestation(secret, decision["id"], gate) for gate in decision["attestation"]["gates"]]
    forged = [verify_attestation(secret, decision["id"], {**gate, "confirmed": not gate["confirmed"]}) for gate in decision["attestation"]["gates"]]
    first = decision["gates"][0]
    # Single use across processes: the first claim runs the call, a second one is refused.
    claims = [client.claim_run(decision["id"], first["callId"]) for _ in range(2)]
    client.report_outcome(decision["id"], first["callId"], "executed", "done by the Python client")
    outcome = client.read(decision["id"])["gates"][0].get("outcome", {}).get("status")
    print(json.dumps({
        "step": "decided",
        "confirmed": [gate["confirmed"] for gate in decision["gates"]],
        # Who decided, in the service's one shape: {kind, id, name?, policyVersion?}.
        "decidedBy": [gate["decidedBy"] for gate in decision["gates"]],
        "verified": verified,
        "forgedVerified": forged,
        "hasNewMessage": "newMessage" in decision,
        "claims": claims,
        "outcome": outcome,
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
