import { describe, expect, it } from 'vitest';
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
      decidedBy: { system: true },
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
