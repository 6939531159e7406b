import { describe, expect, it } from 'vitest';
import type { Gate } from '../../src/adk/gate.js';
import type { GateRecord } from '../../src/approvals/records.js';
import { splitReRequests } from '../../src/workflow/re-requests.js';
import { gateRecord, NOW, pauseView } from '../support/records.js';

/** Which gates of a resume's stream ask again for a call the resumed pause approved. */

const approved: GateRecord = {
  ...gateRecord({
    originalCall: { id: 'adk-first', name: 'pay_vendor', args: { amount: 310, to: 'acme' } },
  }),
  state: 'approved',
  decision: { by: 'UBOB', at: NOW },
};
const resumed = pauseView([approved]);

function asking(id: string, name: string, args: Gate['originalCall']['args']): Gate {
  return {
    confirmationCallId: `ask-${id}`,
    originalCall: { id, name, args },
    hint: '',
  };
}

describe('splitReRequests', () => {
  it('the same tool and arguments under another call id, the approved call not run: asked again', () => {
    const again = asking('adk-second', 'pay_vendor', { to: 'acme', amount: 310 });
    expect(splitReRequests([again], resumed, new Set())).toEqual({
      asked: [],
      again: [{ approved: resumed.gates[0], again }],
    });
  });

  it('the approved call ran in the stream: a later identical call is a new request', () => {
    const later = asking('adk-second', 'pay_vendor', { amount: 310, to: 'acme' });
    expect(splitReRequests([later], resumed, new Set(['adk-first']))).toEqual({
      asked: [later],
      again: [],
    });
  });

  it('other arguments, another tool, or no resumed pause: new requests', () => {
    const gates = [
      asking('a', 'pay_vendor', { amount: 311, to: 'acme' }),
      asking('b', 'refund', { amount: 310, to: 'acme' }),
    ];
    expect(splitReRequests(gates, resumed, new Set()).again).toEqual([]);
    const same = asking('c', 'pay_vendor', { amount: 310, to: 'acme' });
    expect(splitReRequests([same], undefined, new Set())).toEqual({ asked: [same], again: [] });
  });

  it('a rejected gate is never asked "again": only approvals are', () => {
    const rejected = pauseView([{ ...approved, state: 'rejected' }]);
    const same = asking('d', 'pay_vendor', { amount: 310, to: 'acme' });
    expect(splitReRequests([same], rejected, new Set()).again).toEqual([]);
  });
});
