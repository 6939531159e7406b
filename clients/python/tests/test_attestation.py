import unittest

from adk_slack_approvals.attestation import canonical_json, payload_sha256, sha256_hex, verify_attestation

# Produced by the service's own code (packages/adk-approvals/src/attestation.ts, Node 20) for
# these fields and this secret; the Python side must agree byte for byte.
SECRET = "vector-secret-of-at-least-32-chars!!"
ARGS = {"b": [1.5, 1e21, 1e-7, 'é\n"'], "a": 2}
VECTOR = {
    "version": "adk-approvals/attestation/v1",
    "callId": "adk-ask",
    "originalCallId": "adk-call",
    "tool": "transfer_money",
    "argsSha256": "668b5543b17399d3111a4f76485e17c382eb0fe1bbdb09229431269d9936682c",
    "confirmed": True,
    "payloadSha256": "a87cebe63806830d1aeb144cb5fa2293b9416069f786bc9854d66fae6f563d07",
    "expiresAt": 1800000000,
    "signature": "48953b6590476d7ded01ed448bc232fb6d751905adfdb97e2fd65dff4af51dfd",
}


class CanonicalJsonTest(unittest.TestCase):
    def test_writes_what_javascript_writes(self):
        self.assertEqual(canonical_json(ARGS), '{"a":2,"b":[1.5,1e+21,1e-7,"é\\n\\""]}')
        self.assertEqual(canonical_json({"n": 1.0, "t": True, "z": None}), '{"n":1,"t":true,"z":null}')

    def test_hashes_match_the_service(self):
        self.assertEqual(sha256_hex(canonical_json(ARGS)), VECTOR["argsSha256"])
        self.assertEqual(payload_sha256({"days": 2}), VECTOR["payloadSha256"])
        self.assertEqual(payload_sha256(None), "")


class VerifyAttestationTest(unittest.TestCase):
    def test_accepts_the_service_signature(self):
        self.assertTrue(verify_attestation(SECRET, "p-vector", VECTOR))

    def test_refuses_another_pause_secret_or_any_changed_field(self):
        self.assertFalse(verify_attestation(SECRET, "p-other", VECTOR))
        self.assertFalse(verify_attestation("another-secret-of-at-least-32-chars", "p-vector", VECTOR))
        for field, value in (("confirmed", False), ("argsSha256", "0" * 64), ("expiresAt", 1900000000), ("tool", "x")):
            with self.subTest(field=field):
                self.assertFalse(verify_attestation(SECRET, "p-vector", {**VECTOR, field: value}))


if __name__ == "__main__":
    unittest.main()
