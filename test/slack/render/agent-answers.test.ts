import { describe, expect, it } from 'vitest';
import type { GateRecord } from '../../../src/approvals/records.js';
import { ACTION_IDS } from '../../../src/slack/codecs/action-ids.js';
import { answeredByAgentReason } from '../../../src/slack/render/agent-answers.js';
import { renderApprovalCard } from '../../../src/slack/render/approval-card.js';
import { gateRecord, NOW, pauseView } from '../../support/records.js';
import { allText, expectInert, expectValidMessage } from '../blocks.js';

/**
 * Cards that tell what happened to a call the app did not decide, or did not run after the
 * approval: never a live decision, never "approved calls ran".
 */

function cancelledByAgent(gate: GateRecord, reason: string): GateRecord {
  return {
    ...gate,
    state: 'cancelled',
    version: gate.version + 1,
    decision: { by: 'api:runbooks', at: NOW - 5_000, reason },
  };
}

describe('a gate the agent answered itself (it reported an outcome for a call nobody here decided)', () => {
  const gate = gateRecord();
  const reason = answeredByAgentReason('transfer_money', {
    status: 'executed',
    detail: "the plugin's enforcement is off",
  });
  const view = pauseView([cancelledByAgent(gate, reason)], {
    resume: { state: 'abandoned', attempts: 0, at: NOW },
  });
  const card = renderApprovalCard(view, {
    now: NOW,
    agentOutcomes: new Map([[gate.confirmationCallId, 'executed']]),
  });
  const text = allText(card.blocks);

  it('says it ran without an approval from here, and why, with no buttons', () => {
    expectValidMessage(card);
    expectInert(card.blocks, card.text);
    expect(text).toContain(':warning: Ran without an approval from here');
    expect(text).toContain(
      "transfer_money ran without an approval from here (the plugin's enforcement is off)",
    );
    expect(text).toContain('Closed by the agent');
    expect(JSON.stringify(card.blocks)).not.toContain(ACTION_IDS.approve);
    expect(JSON.stringify(card.blocks)).not.toContain(ACTION_IDS.withdraw);
  });

  it('never reads as a cancel or a withdrawal, nor as a call the app will still answer', () => {
    expect(text).not.toContain('Cancelled by');
    expect(text).not.toContain('a call was cancelled');
    expect(text).toContain('Not resumed from here: the agent answered the call itself');
  });

  it('escapes what the agent said', () => {
    const hostile = answeredByAgentReason('transfer_money', {
      status: 'executed',
      detail: '<!channel> <@U123>',
    });
    const other = renderApprovalCard(pauseView([cancelledByAgent(gate, hostile)]), {
      now: NOW,
      agentOutcomes: new Map([[gate.confirmationCallId, 'executed']]),
    });
    expectInert(other.blocks, other.text);
  });

  it('a gate cancelled by the agent without any outcome stays a cancel', () => {
    const plain = renderApprovalCard(pauseView([cancelledByAgent(gate, 'alert resolved')]), {
      now: NOW,
    });
    expect(allText(plain.blocks)).toContain(':no_entry_sign: Cancelled');
  });
});

describe('words for what the agent reported about a gate nobody decided', () => {
  it('names the tool and what happened, for each status', () => {
    expect(answeredByAgentReason('t', { status: 'executed' })).toBe(
      't ran without an approval from here',
    );
    expect(answeredByAgentReason('t', { status: 'failed', detail: 'the tool threw Error' })).toBe(
      't ran without an approval from here, and failed (the tool threw Error)',
    );
    expect(answeredByAgentReason('t', { status: 'rejected' })).toBe(
      'the agent answered t with a no itself, so it can no longer be approved',
    );
    expect(answeredByAgentReason('t', { status: 'blocked', detail: 'refused' })).toBe(
      'the agent answered t itself, so it can no longer be approved (refused)',
    );
  });
});

describe('an approved call the agent asked for again instead of running it', () => {
  it('is never shown as ran: the gate and the resume line say it asked again and nothing ran', () => {
    const gate: GateRecord = {
      ...gateRecord(),
      state: 'approved',
      version: 2,
      decision: { by: 'UBOB', at: NOW - 5_000 },
    };
    const view = pauseView([gate], { resume: { state: 'resumed', attempts: 1, at: NOW } });
    const card = renderApprovalCard(view, {
      now: NOW,
      toolOutcomes: new Map([[gate.originalCall.id, 'asked_again']]),
    });
    expectValidMessage(card);
    const text = allText(card.blocks);
    expect(text).toContain('Approved, but the agent asked again instead of running it');
    expect(text).toContain(
      'it asked again for `transfer_money` instead of running it: nothing ran',
    );
    expect(text).not.toContain('approved calls ran');
    expect(text).not.toContain(':white_check_mark:');
  });
});
