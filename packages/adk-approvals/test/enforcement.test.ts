import { describe, expect, it } from 'vitest';
import {
  ATTESTATION_VERSION,
  attestationSignature,
  canonicalJson,
  type GateAttestation,
  payloadSha256,
  sha256Hex,
} from '../src/attestation.js';
import { type ConfirmedCall, judgeConfirmedCall } from '../src/enforcement.js';

const SECRET = 'a-test-secret-that-is-long-enough-0001';
const NOW = 1_800_000_000;

function attest(
  overrides: Partial<Omit<GateAttestation, 'signature' | 'version'>> = {},
  secret = SECRET,
): { pauseId: string; attestation: GateAttestation } {
  const fields = {
    pauseId: 'p-1',
    callId: 'adk-ask-1',
    originalCallId: 'adk-call-1',
    tool: 'transfer_money',
    argsSha256: sha256Hex(canonicalJson({ amount: 250 })),
    confirmed: true,
    payloadSha256: '',
    expiresAt: NOW + 60,
    ...overrides,
  };
  const { pauseId, ...rest } = fields;
  return {
    pauseId,
    attestation: {
      version: ATTESTATION_VERSION,
      ...rest,
      signature: attestationSignature(secret, fields),
    },
  };
}

const call = (overrides: Partial<ConfirmedCall> = {}): ConfirmedCall => ({
  id: 'adk-call-1',
  tool: 'transfer_money',
  args: { amount: 250 },
  confirmation: { confirmed: true, payload: undefined },
  ...overrides,
});

const judge = (c: ConfirmedCall, decisions = [attest()], used = false) =>
  judgeConfirmedCall({ mode: 'attested', call: c, decisions, secret: SECRET, now: NOW, used });

describe('attested enforcement', () => {
  it('runs a call the service attested for this id, tool, arguments and answer', () => {
    expect(judge(call())).toEqual({
      kind: 'run',
      attested: { pauseId: 'p-1', callId: 'adk-ask-1' },
    });
  });

  it('ignores the order of argument keys (canonical JSON)', () => {
    const decisions = [attest({ argsSha256: sha256Hex(canonicalJson({ a: 1, b: 2 })) })];
    expect(judge(call({ args: { b: 2, a: 1 } }), decisions).kind).toBe('run');
  });

  it.each([
    ['no decision at all', call(), [], 'no_decision'],
    ['a decision for another call id', call({ id: 'adk-call-2' }), [attest()], 'no_decision'],
    [
      'a signature from another secret',
      call(),
      [attest({}, 'another-secret-of-32-characters-xx')],
      'bad_signature',
    ],
    ['an expired decision', call(), [attest({ expiresAt: NOW })], 'expired'],
    ['a decision for another tool', call({ tool: 'pay_invoice' }), [attest()], 'tool_mismatch'],
    [
      'a decision for other arguments',
      call({ args: { amount: 900 } }),
      [attest()],
      'arguments_mismatch',
    ],
    ['a deny', call(), [attest({ confirmed: false })], 'denied'],
    [
      'an approval with another payload',
      call({ confirmation: { confirmed: true, payload: { days: 9 } } }),
      [attest({ payloadSha256: payloadSha256({ days: 2 }) })],
      'answer_mismatch',
    ],
    ['arguments that are not JSON', call({ args: undefined }), [attest()], 'arguments_not_json'],
  ] as const)('refuses %s', (_what, c, decisions, reason) => {
    expect(judge(c, [...decisions])).toMatchObject({ kind: 'refuse', reason });
  });

  it('refuses a decision tampered with after signing (confirmed flipped)', () => {
    const { pauseId, attestation } = attest({ confirmed: false });
    const flipped = { pauseId, attestation: { ...attestation, confirmed: true } };
    expect(judge(call(), [flipped])).toMatchObject({ kind: 'refuse', reason: 'bad_signature' });
  });

  it('refuses a second run on the same decision', () => {
    expect(judge(call(), [attest()], true)).toMatchObject({ reason: 'already_used' });
  });

  it('runs when one of several decisions for the call fits', () => {
    const other = attest({ argsSha256: sha256Hex(canonicalJson({ amount: 1 })), callId: 'x' });
    expect(judge(call(), [other, attest()]).kind).toBe('run');
  });
});

describe('other modes', () => {
  const base = { decisions: [], secret: SECRET, now: NOW, used: false };
  it('deny-only refuses any deny, and lets an approval through without a decision', () => {
    const denied = call({ confirmation: { confirmed: false, payload: undefined } });
    expect(judgeConfirmedCall({ ...base, mode: 'deny-only', call: denied })).toEqual({
      kind: 'refuse',
      reason: 'denied',
    });
    expect(judgeConfirmedCall({ ...base, mode: 'deny-only', call: call() }).kind).toBe('run');
  });
  it('off lets everything through', () => {
    const denied = call({ confirmation: { confirmed: false, payload: undefined } });
    expect(judgeConfirmedCall({ ...base, mode: 'off', call: denied }).kind).toBe('run');
  });
});
