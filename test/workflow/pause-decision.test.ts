import { decisionSchema } from '@adk-slack-approvals/adk-approvals';
import { describe, expect, it } from 'vitest';
import { pauseBody } from '../../src/api/responses.js';
import { decisionBody } from '../../src/workflow/pause-decision.js';
import { gateRecord, NOW, pauseView } from '../support/records.js';

const signing = { keyName: 'runbooks', secret: 'test-secret' };

describe('decisionBody: a gate nobody decided in time', () => {
  const expired = gateRecord({ state: 'expired', decision: { by: 'system', at: NOW } });

  it('under onExpiry: timeout says expired, and its payload says timed out, in the body and in newMessage', () => {
    const timedOut = { ...expired, policy: { ...expired.policy, onExpiry: 'timeout' as const } };
    const body = decisionBody(pauseView([timedOut]), signing);
    expect(body.status).toBe('decided');
    expect(body.gates[0]).toMatchObject({
      state: 'expired',
      confirmed: false,
      payload: { timedOut: true, expiredAt: NOW },
      decidedBy: { kind: 'expiry', id: 'system' },
    });
    expect(body.gates[0]?.reason).toContain('timed out');
    expect(body.newMessage?.parts[0]?.functionResponse?.response).toEqual({
      confirmed: false,
      payload: { timedOut: true, expiredAt: NOW },
    });
  });

  it('under onExpiry: reject says expired with no timedOut for the agent to read', () => {
    const body = decisionBody(pauseView([expired]), signing);
    expect(body.gates[0]).toMatchObject({ state: 'expired', confirmed: false });
    expect(body.gates[0]?.payload).toBeUndefined();
    expect(body.gates[0]?.reason).toContain('rejected automatically');
  });
});

describe('decidedBy: one shape for whoever decided, in the decision and in GET /v1/pauses/{id} (#34)', () => {
  const gateBy = (
    state: 'approved' | 'rejected' | 'cancelled' | 'expired',
    by: string,
    index = 0,
  ) => gateRecord({ index, state, decision: { by, at: NOW } });
  const cases = [
    [gateBy('approved', 'U0BOB000001'), { kind: 'person', id: 'U0BOB000001', name: 'bob' }],
    [
      gateBy('rejected', 'policy:no-invoices'),
      { kind: 'policy', id: 'no-invoices', policyVersion: 'v-sha' },
    ],
    [gateBy('approved', 'grant:gr_0123456789ab'), { kind: 'grant', id: 'gr_0123456789ab' }],
    [gateBy('expired', 'system'), { kind: 'expiry', id: 'system' }],
  ] as const;
  const names = new Map([['U0BOB000001', 'bob']]);

  it('is {kind, id}, with the name of a person and the policy version of a rule', () => {
    for (const [gate, expected] of cases) {
      const withVersion = { ...gate, policy: { ...gate.policy, policyVersion: 'v-sha' } };
      const view = pauseView([withVersion]);
      expect(decisionBody(view, signing, names).gates[0]?.decidedBy).toEqual(expected);
      const read = pauseBody(view, undefined, names) as { gates: { decidedBy?: unknown }[] };
      expect(read.gates[0]?.decidedBy).toEqual(expected);
    }
  });

  it('names the agent, not a person, for its own cancel', () => {
    const view = pauseView([gateBy('cancelled', 'api:runbook')]);
    const body = decisionBody(view, signing);
    expect(body.status).toBe('cancelled');
    expect(body.gates[0]?.decidedBy).toEqual({ kind: 'agent', id: 'runbook' });
  });

  it('is what the TypeScript plugin reads: its schema parses the body the service sends', () => {
    const view = pauseView([gateBy('approved', 'U0BOB000001')]);
    const parsed = decisionSchema.parse(decisionBody(view, signing, names));
    expect(parsed.gates[0]?.decidedBy).toEqual({ kind: 'person', id: 'U0BOB000001', name: 'bob' });
  });
});
