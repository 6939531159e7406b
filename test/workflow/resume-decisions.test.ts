import { describe, expect, it } from 'vitest';
import {
  decisionFor,
  decisionsFor,
  rejectionFollowUp,
} from '../../src/workflow/resume-decisions.js';
import { gateRecord, NOW, pauseView, vacationGate } from '../support/records.js';

const by = { by: 'UAPPROVER1', at: NOW };

describe('what ADK receives for each decided gate', () => {
  it('approval without a template sends only confirmed: true', () => {
    expect(decisionFor(gateRecord({ state: 'approved', decision: by }))).toEqual({
      confirmed: true,
    });
  });

  it("approval sends the approver's edited payload, else the template as the tool proposed it", () => {
    const edited = vacationGate(0, { approved_days: 4 });
    expect(
      decisionFor({
        ...edited,
        state: 'approved',
        decision: { ...by, payload: { approved_days: 2 } },
      }),
    ).toEqual({ confirmed: true, payload: { approved_days: 2 } });
    expect(decisionFor({ ...edited, state: 'approved', decision: by })).toEqual({
      confirmed: true,
      payload: { approved_days: 4 },
    });
  });

  it('a rejection carries its reason inside an object template, for tools that read the payload', () => {
    const gate = vacationGate(0, { approved_days: 4 });
    expect(
      decisionFor({ ...gate, state: 'rejected', decision: { ...by, reason: 'too busy' } }),
    ).toEqual({
      confirmed: false,
      payload: { approved_days: 4, rejectionReason: 'too busy' },
    });
    expect(
      decisionFor(gateRecord({ state: 'rejected', decision: { ...by, reason: 'no' } })),
    ).toEqual({
      confirmed: false,
    });
  });

  it('expiry is a rejection that says nobody decided in time', () => {
    const gate = vacationGate(0, { approved_days: 4 });
    const decision = decisionFor({
      ...gate,
      state: 'expired',
      decision: { by: 'system', at: NOW },
    });
    expect(decision.confirmed).toBe(false);
    expect(JSON.stringify(decision.payload)).toContain('Nobody decided in time');
  });

  it('onExpiry: timeout answers no with a payload that says it timed out, template or not', () => {
    const expired = { state: 'expired' as const, decision: { by: 'system', at: NOW } };
    const withTemplate = vacationGate(0, { approved_days: 4 });
    const timeout = { ...withTemplate.policy, onExpiry: 'timeout' as const };
    expect(decisionFor({ ...withTemplate, ...expired, policy: timeout })).toEqual({
      confirmed: false,
      payload: { approved_days: 4, timedOut: true, expiredAt: NOW },
    });
    const bare = gateRecord(expired);
    expect(decisionFor({ ...bare, policy: { ...bare.policy, onExpiry: 'timeout' } })).toEqual({
      confirmed: false,
      payload: { timedOut: true, expiredAt: NOW },
    });
    // onExpiry: reject is still a plain rejection: no timedOut for the agent to read.
    expect(decisionFor(bare)).toEqual({ confirmed: false });
  });

  it('the follow-up message tells a timed-out request from a rejected one', () => {
    const expired = gateRecord({ state: 'expired', decision: { by: 'system', at: NOW } });
    const timedOut = { ...expired, policy: { ...expired.policy, onExpiry: 'timeout' as const } };
    expect(rejectionFollowUp(pauseView([timedOut]))).toContain('timed out. It was not rejected');
    expect(rejectionFollowUp(pauseView([expired]))).toContain('rejected automatically');
  });

  it('refuses to answer a gate that is still pending or was cancelled', () => {
    expect(() => decisionFor(gateRecord())).toThrow(/pending/);
    expect(() => decisionFor(gateRecord({ state: 'cancelled', decision: by }))).toThrow(
      /cancelled/,
    );
  });

  it('answers every gate of a pause by its confirmation call id', () => {
    const view = pauseView([
      gateRecord({ index: 0, state: 'approved', decision: by }),
      gateRecord({ index: 1, state: 'rejected', decision: by }),
    ]);
    const decisions = decisionsFor(view);
    expect([...decisions.values()]).toEqual([{ confirmed: true }, { confirmed: false }]);
    expect([...decisions.keys()]).toEqual(view.gates.map((gate) => gate.confirmationCallId));
  });
});

describe('the follow-up message after a resume', () => {
  it('lists each refused tool with its reason, and is absent when there is none', () => {
    const view = pauseView([
      gateRecord({ index: 0, state: 'rejected', decision: { ...by, reason: 'wrong account' } }),
      gateRecord({ index: 1, state: 'approved', decision: by }),
    ]);
    expect(rejectionFollowUp(view)).toBe(
      'Feedback from the human approvers on the tool calls that were not approved:\n- transfer_money: wrong account',
    );
    expect(
      rejectionFollowUp(pauseView([gateRecord({ state: 'rejected', decision: by })])),
    ).toBeUndefined();
  });

  it('credits a denial to the policy and an expiry to the clock, never to the human approvers (#34)', () => {
    const denied = pauseView([
      gateRecord({
        state: 'rejected',
        decision: { by: 'policy:no-invoices', at: NOW, reason: 'Invoices go through AP' },
      }),
    ]);
    expect(rejectionFollowUp(denied)).toBe(
      'Why these tool calls were not approved:\n- transfer_money: denied by the approval policy (rule no-invoices), not by a person: Invoices go through AP',
    );
    const mixed = rejectionFollowUp(
      pauseView([
        gateRecord({ index: 0, state: 'rejected', decision: { ...by, reason: 'wrong account' } }),
        gateRecord({ index: 1, state: 'expired', decision: { by: 'system', at: NOW } }),
      ]),
    );
    expect(mixed).not.toContain('human approvers');
    expect(mixed).toContain('- transfer_money: rejected by an approver: wrong account');
    expect(mixed).toContain('- transfer_money: Nobody decided in time');
  });
});
