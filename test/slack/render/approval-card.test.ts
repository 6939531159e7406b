import { blocksTextLength } from '@adk-slack-approvals/block-kit';
import { describe, expect, it } from 'vitest';
import type {
  GateRecord,
  GateState,
  PauseNotes,
  PauseView,
} from '../../../src/approvals/records.js';
import {
  ACTION_IDS,
  parseButtonValue,
  parseGateChoice,
} from '../../../src/slack/codecs/action-ids.js';
import { renderApprovalCard } from '../../../src/slack/render/approval-card.js';
import {
  gateRecord,
  inputGate,
  manyGates,
  NOW,
  POLICY,
  pauseView,
  vacationGate,
} from '../../support/records.js';
import {
  allText,
  buttons,
  decisionPaths,
  expectInert,
  expectValidMessage,
  menuValues,
} from '../blocks.js';
import { pick, randomText, seeded } from '../random.js';

const HOSTILE = '<!channel> <@U123> <https://evil.example|https://bank.example> &amp; `x`';

function render(view: PauseView) {
  const card = renderApprovalCard(view, { now: NOW });
  expectValidMessage(card);
  expectInert(card.blocks, card.text);
  return card;
}

function decided(gate: GateRecord, state: GateState, by = 'UDECIDER', reason?: string): GateRecord {
  return {
    ...gate,
    state,
    version: gate.version + 1,
    decision: { by, at: NOW - 5_000, ...(reason === undefined ? {} : { reason }) },
  };
}

describe('a bidi argument', () => {
  it('renders with the control visible: the card shows what the tool will receive', () => {
    const gate = gateRecord({
      originalCall: {
        id: 'adk-bidi',
        name: 'transfer_money',
        args: { iban: 'DE00\u202E1234\u202C5678' },
      },
    });
    const card = render(pauseView([gate]));
    expect(allText(card.blocks)).toContain('"iban": "DE00⟨U+202E⟩1234⟨U+202C⟩5678"');
    expect(JSON.stringify(card)).not.toMatch(/\\u202[ce]|[\u202c\u202e]/i);
  });
});

describe('the approval card for one gate', () => {
  const view = pauseView([gateRecord()]);
  const card = render(view);
  const text = allText(card.blocks);

  it('shows the tool, its arguments in a code block and who asked', () => {
    expect(text).toContain('`transfer_money`');
    expect(text).toContain('```\n{\n  "amount": 100\n}\n```');
    expect(text).toContain('requested by <@UREQUESTER>');
    expect(text).toContain('agent `hitl_agent`');
  });

  it("leaves out ADK's default hint, which speaks to developers, and shows a tool's own hint", () => {
    expect(text).not.toContain('FunctionResponse');
    const own = renderApprovalCard(pauseView([vacationGate()]), { now: NOW });
    expect(allText(own.blocks)).toContain(
      'Please approve or reject the request for 4 vacation days.',
    );
  });

  it('says who may approve and when it expires, in each reader’s time zone', () => {
    expect(text).toContain('Who may approve: <@UAPPROVER1> · not the requester');
    const expires = Math.floor((NOW + 3_600_000) / 1000);
    expect(text).toContain(
      `Expires <!date^${expires}^{date_short_pretty} at {time}|2026-11-22T06:47:37Z> — then rejected automatically`,
    );
  });

  it('offers Approve (primary) and Reject (danger) carrying only the pause and call ids', () => {
    const found = buttons(card.blocks).filter(({ actionId }) => actionId !== ACTION_IDS.withdraw);
    expect(found.map(({ label, style }) => [label, style])).toEqual([
      ['Approve', 'primary'],
      ['Reject', 'danger'],
    ]);
    for (const button of found) {
      expect(parseButtonValue(button.value)).toEqual({
        pauseId: view.pause.id,
        callId: view.gates[0]?.confirmationCallId,
      });
      expect(button.value).not.toContain('amount');
    }
  });

  it('has a short notification text that names the tool and mentions nobody', () => {
    expect(card.text).toBe('Approval needed: transfer_money (hitl_agent)');
  });
});

describe('a card for a question (adk_request_input) says it wants an answer', () => {
  // The agent's own question may say anything; the card's words around it may not say approve.
  const ownWords = (text: string) =>
    text.replace('What budget should I approve?', '').replace(/<@\w+>/g, '<@U>');

  it('is headed "Input needed", says who may answer and offers Answer, not Approve', () => {
    const card = render(pauseView([inputGate()]));
    const text = allText(card.blocks);
    expect(text).toContain('*Input needed*');
    expect(ownWords(text)).not.toMatch(/approv/i);
    expect(text).toContain('Who may answer: <@UAPPROVER1>');
    expect(card.text).toBe('Input needed: a question from ask_budget (hitl_agent)');
    // Withdraw is the requester's; nothing on the card approves.
    expect(buttons(card.blocks).map(({ label }) => label)).toEqual(['Withdraw', 'Answer']);
  });

  it('two questions get no Approve all: they are answered on their forms', () => {
    const card = render(pauseView([inputGate(0), inputGate(1)]));
    expect(allText(card.blocks)).toContain('2 of 2 questions wait for an answer.');
    expect(buttons(card.blocks).map(({ label }) => label)).toEqual([
      'Withdraw',
      'Answer',
      'Answer',
    ]);
  });

  it('once answered it says answered by whom, never approved', () => {
    const answered = decided(inputGate(), 'approved', 'UBOB');
    const card = render(pauseView([answered]));
    const text = allText(card.blocks);
    expect(text).toContain('*Input request*');
    expect(text).toContain('Every question is answered: 1 answered.');
    expect(text).toContain('Answered by <@UBOB>');
    expect(ownWords(text)).not.toMatch(/approv/i);
    expect(card.text).toBe('Input request decided: 1 answered');
  });

  it('in rows, as many questions are shown, each says who asks and what, not adk_request_input', () => {
    const card = render(pauseView(manyGates(30, inputGate)));
    const text = allText(card.blocks);
    expect(text).toContain(':speech_balloon: `ask_budget` asks');
    expect(text).toContain('What budget should I approve?');
    expect(text).not.toContain('adk_request_input');
  });

  it('a card with a tool call and a question asks for both', () => {
    const card = render(pauseView([gateRecord({ index: 0 }), inputGate(1)]));
    const text = allText(card.blocks);
    expect(text).toContain('*Approval and input needed*');
    expect(text).toContain('2 of 2 requests wait for a decision or an answer.');
  });
});

describe('buttons follow the state of the gates', () => {
  it('adds Edit & approve when the tool asked for a payload', () => {
    const card = render(pauseView([vacationGate()]));
    expect(buttons(card.blocks).map(({ actionId }) => actionId)).toEqual([
      ACTION_IDS.withdraw,
      ACTION_IDS.approve,
      ACTION_IDS.reject,
      ACTION_IDS.edit,
    ]);
  });

  it('adds a button per grant scope the rule offers, each naming its scope, after Approve and Reject', () => {
    const gate = gateRecord();
    const offering = {
      ...gate,
      policy: { ...gate.policy, grants: ['session' as const, 5_400_000, 'exactArgs' as const] },
    };
    const card = render(pauseView([offering]));
    const found = buttons(card.blocks).filter(({ actionId }) => actionId !== ACTION_IDS.withdraw);
    expect(found.map(({ actionId, label }) => [actionId, label])).toEqual([
      [ACTION_IDS.approve, 'Approve'],
      [ACTION_IDS.reject, 'Reject'],
      [ACTION_IDS.grantSession, 'Approve for this session'],
      [ACTION_IDS.grantTime, 'Approve for 90 minutes'],
      [ACTION_IDS.grantExactArgs, 'Always for these exact arguments (8 h)'],
    ]);
    for (const button of found) {
      expect(parseButtonValue(button.value)).toEqual({
        pauseId: expect.any(String),
        callId: gate.confirmationCallId,
      });
    }
    expect(buttons(render(pauseView([gateRecord()])).blocks).map((b) => b.actionId)).not.toContain(
      ACTION_IDS.grantSession,
    );
  });

  it('offers Withdraw, carrying only the pause id, while a gate is pending, and not once all are decided', () => {
    const pending = render(pauseView([gateRecord()]));
    const withdraw = buttons(pending.blocks).find(
      ({ actionId }) => actionId === ACTION_IDS.withdraw,
    );
    expect(parseButtonValue(withdraw?.value)).toEqual({
      pauseId: pauseView([gateRecord()]).pause.id,
    });
    const withdrawn = render(
      pauseView([{ ...gateRecord(), state: 'withdrawn', decision: { by: 'U0ALICE', at: 1 } }]),
    );
    expect(buttons(withdrawn.blocks)).toEqual([]);
    expect(JSON.stringify(withdrawn.blocks)).toContain('Withdrawn by <@U0ALICE>');
  });

  it('offers Approve all and Reject all only while two or more gates are pending', () => {
    const both = render(pauseView([gateRecord(), vacationGate(1)]));
    const actionIds = buttons(both.blocks).map(({ actionId }) => actionId);
    expect(actionIds).toContain(ACTION_IDS.approveAll);
    expect(actionIds).toContain(ACTION_IDS.rejectAll);
    const [first, second] = [gateRecord(), vacationGate(1)];
    if (!first || !second) throw new Error('gates');
    const one = render(pauseView([decided(first, 'approved'), second]));
    expect(buttons(one.blocks).map(({ actionId }) => actionId)).not.toContain(
      ACTION_IDS.approveAll,
    );
  });

  it('takes a decided gate’s buttons away and says who decided, when and why', () => {
    const reason = `budget frozen ${HOSTILE}`;
    const card = render(pauseView([decided(gateRecord(), 'rejected', 'UDECIDER', reason)]));
    expect(buttons(card.blocks)).toEqual([]);
    const text = allText(card.blocks);
    expect(text).toContain(':x: Rejected');
    expect(text).toMatch(
      /Rejected by <@UDECIDER> <!date\^\d+\^\{date_short_pretty\} at \{time\}\|2026-11-22T05:47:32Z>/,
    );
    expect(text).toContain(
      'Reason: budget frozen &lt;!channel&gt; &lt;@U123&gt; &lt;https://evil.example|https://bank.example&gt; &amp;amp;',
    );
    expect(card.text).toBe('Approval request decided: 1 rejected');
  });

  it('shows the approved payload of an edited approval, escaped', () => {
    const gate = vacationGate();
    const approved: GateRecord = {
      ...decided(gate, 'approved'),
      decision: { by: 'UDECIDER', at: NOW, payload: { approved_days: 2, note: '<!here>' } },
    };
    const text = allText(render(pauseView([approved])).blocks);
    expect(text).toContain('*Sent, edited by the approver:*');
    expect(text).toContain('• note: ~(none)~ → *"&lt;!here&gt;"*');
    expect(text).toContain('```\n{\n  "approved_days": 2,\n  "note": "&lt;!here&gt;"\n}\n```');
  });

  it('tells expiry that rejected, expiry that cancelled and a person’s cancel apart', () => {
    const expired = allText(render(pauseView([decided(gateRecord(), 'expired', 'system')])).blocks);
    expect(expired).toContain('Expired — rejected automatically');
    const lapsed = allText(
      render(
        pauseView([
          decided(gateRecord({ policy: { ...POLICY, onExpiry: 'cancel' } }), 'cancelled', 'system'),
        ]),
      ).blocks,
    );
    expect(lapsed).toContain('Expired — cancelled');
    // A person cancels only by withdrawing a question (ADK has no "no" to one): a withdrawal.
    const cancelled = allText(
      render(pauseView([decided(gateRecord(), 'cancelled', 'UBOSS')])).blocks,
    );
    expect(cancelled).toMatch(/Withdrawn by <@UBOSS>/);
  });
});

describe('who may approve and how far the votes are', () => {
  it('names users, user groups and the channel', () => {
    const policy = {
      ...POLICY,
      approvers: [
        { kind: 'user' as const, id: 'U1' },
        { kind: 'usergroup' as const, id: 'S0OPS' },
        { kind: 'channel' as const },
      ],
    };
    const text = allText(render(pauseView([gateRecord({ policy })])).blocks);
    expect(text).toContain('Who may approve: <@U1>, <!subteam^S0OPS>, members of this channel');
  });

  it('says plainly when nobody may approve under the policy', () => {
    const policy = { ...POLICY, rule: 'defaults', approvers: [] };
    const text = allText(render(pauseView([gateRecord({ policy })])).blocks);
    expect(text).toContain(
      'Nobody may approve this under the current policy (rule `defaults`): it cannot be approved.',
    );
  });

  it('shows quorum progress with the approvers so far', () => {
    const gate = gateRecord({
      policy: { ...POLICY, quorum: 2 },
      votes: [{ voter: 'U1', choice: 'approve', at: NOW - 1_000 }],
      version: 2,
    });
    const text = allText(render(pauseView([gate])).blocks);
    expect(text).toContain('1 of 2 approvals: <@U1>');
    expect(text).toContain('2 approvals needed');
  });

  it('does not turn a malformed id into markup', () => {
    const policy = { ...POLICY, approvers: [{ kind: 'user' as const, id: 'U1|x> <!channel' }] };
    const card = render(pauseView([gateRecord({ policy })]));
    expect(allText(card.blocks)).toContain('@U1|x&gt; &lt;!channel');
  });

  it('changes block ids when a vote changes the card, and keeps them unique', () => {
    const before = gateRecord({ policy: { ...POLICY, quorum: 2 } });
    const after = {
      ...before,
      votes: [{ voter: 'U1', choice: 'approve' as const, at: NOW }],
      version: 2,
    };
    const ids = (gate: GateRecord) =>
      render(pauseView([gate])).blocks.map((block) => block.block_id ?? '');
    const [a, b] = [ids(before), ids(after)];
    expect(new Set(a).size).toBe(a.length);
    expect(a[1]).not.toBe(b[1]);
  });
});

describe('the pause’s resume status', () => {
  const allDecided = (resume: PauseView['pause']['resume']) =>
    render(pauseView([decided(gateRecord(), 'approved')], { resume, version: 3 }));

  it('says when the agent is resuming and when it resumed', () => {
    expect(allText(allDecided({ state: 'resuming', attempts: 1 }).blocks)).toContain(
      'Resuming the agent…',
    );
    expect(allText(allDecided({ state: 'resumed', attempts: 1, at: NOW }).blocks)).toContain(
      'Agent resumed',
    );
  });

  it('shows a failed resume’s error, escaped, with a Retry button only then', () => {
    const failed = allDecided({ state: 'failed', attempts: 2, lastError: `ADK said ${HOSTILE}` });
    expect(allText(failed.blocks)).toContain('Resuming the agent failed (retried 1 time).');
    expect(allText(failed.blocks)).toContain('ADK said &lt;!channel&gt;');
    const retry = buttons(failed.blocks).filter(
      ({ actionId }) => actionId === ACTION_IDS.retryResume,
    );
    expect(retry).toHaveLength(1);
    for (const state of ['resuming', 'resumed', 'abandoned'] as const) {
      const others = buttons(allDecided({ state, attempts: 1 }).blocks);
      expect(others.map(({ actionId }) => actionId)).not.toContain(ACTION_IDS.retryResume);
    }
  });

  it('says an abandoned pause will not be resumed', () => {
    expect(allText(allDecided({ state: 'abandoned', attempts: 0 }).blocks)).toContain(
      'Not resumed',
    );
  });
});

describe('hostile input renders inert everywhere', () => {
  it('escapes arguments, hints, tool and app names', () => {
    const gate = gateRecord({
      originalCall: { id: 'c1', name: `tool${HOSTILE}`, args: { note: HOSTILE, [HOSTILE]: 1 } },
      hint: `hint ${HOSTILE}`,
    });
    const view = pauseView([gate], {
      adk: { appName: `app${HOSTILE}`, userId: 'u', sessionId: 's' },
    });
    const card = render(view);
    const json = JSON.stringify(card);
    expect(json).not.toContain('<!channel>');
    expect(json).not.toContain('<https://evil');
    expect(allText(card.blocks)).toContain('&amp;amp;');
  });
});

describe('size: arguments and gate counts beyond what Slack holds', () => {
  it('cuts 100 kB of arguments and says so, counting characters a reader would', () => {
    const big = gateRecord({
      originalCall: { id: 'c1', name: 'upload', args: { body: 'é<😀'.repeat(25_000) } },
    });
    const card = render(pauseView([big]));
    // 25,000 × three code points, plus the JSON around them.
    expect(allText(card.blocks)).toMatch(/```\n… cut: showing [\d,]+ of 75,0\d\d characters/);
  });

  for (const count of [1, 2, 3, 15, 16, 30, 47, 48, 50, 60, 120]) {
    it(`keeps every pending gate of ${count} decidable within Slack's limits`, () => {
      const view = pauseView(
        manyGates(count, (index) =>
          index % 3 === 0 ? vacationGate(index) : gateRecord({ index }),
        ),
      );
      const card = render(view);
      for (const [callId, paths] of decisionPaths(view, card.blocks)) {
        expect(paths.length, `no way to approve ${callId}`).toBeGreaterThan(0);
      }
      const rejectable = buttons(card.blocks).some(
        ({ actionId }) => actionId === ACTION_IDS.rejectAll,
      );
      expect(rejectable).toBe(count >= 2);
    });
  }

  it('keeps the no-approver line on compact rows', () => {
    const policy = { ...POLICY, rule: 'defaults', approvers: [] };
    const card = render(pauseView(manyGates(40, (index) => gateRecord({ index, policy }))));
    const rows = allText(card.blocks).match(/Nobody may approve this/g) ?? [];
    expect(rows.length).toBeGreaterThanOrEqual(40);
  });

  it('puts no menu on a card whose gates do not match the pause’s call ids', () => {
    const view = pauseView(manyGates(40));
    const [first, ...rest] = view.gates;
    if (!first) throw new Error('gates');
    const stray = {
      ...view,
      gates: [{ ...first, confirmationCallId: 'not-in-call-ids' }, ...rest],
    };
    const card = render(stray);
    expect(menuValues(card.blocks)).toEqual([]);
    for (const [callId, paths] of decisionPaths(stray, card.blocks)) {
      expect(paths.length, callId).toBeGreaterThan(0);
    }
  });

  it('keeps block ids unique even when two gates look the same', () => {
    const gate = gateRecord();
    const view = pauseView([gate, gate, gate]);
    const ids = render(view).blocks.map(({ block_id }) => block_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('degrades 50 gates of 100 kB each to rows with menus that name the right gate', () => {
    const view = pauseView(
      manyGates(50, (index) =>
        gateRecord({
          index,
          originalCall: {
            id: `c${index}`,
            name: `tool_${index}`,
            args: { blob: 'x'.repeat(100_000) },
          },
        }),
      ),
    );
    const card = render(view);
    expect(card.blocks.length).toBeLessThanOrEqual(50);
    const choices = menuValues(card.blocks).map(parseGateChoice);
    expect(choices.every((choice) => choice?.pauseId === view.pause.id)).toBe(true);
    const approvable = new Set(
      choices.filter((choice) => choice?.decision === 'approve').map((choice) => choice?.gateIndex),
    );
    expect(approvable.size).toBe(50);
  });

  it('stays valid, inert and decidable for random gate counts, states, sizes and unicode', () => {
    const random = seeded(20261122);
    const states: GateState[] = [
      'pending',
      'pending',
      'approved',
      'rejected',
      'expired',
      'cancelled',
    ];
    for (let round = 0; round < 60; round += 1) {
      const count = 1 + Math.floor(random() ** 2 * 60);
      const argSize = Math.floor(random() ** 3 * 100_000);
      const gates = manyGates(count, (index) => {
        const state = pick(random, states);
        const base = gateRecord({
          index,
          originalCall: {
            id: `orig-${index}`,
            name: randomText(random, 1 + Math.floor(random() * 90)),
            args: { text: randomText(random, Math.floor(argSize / count)), n: index },
          },
          hint: randomText(random, Math.floor(random() * 800)),
          ...(random() < 0.3 ? { payloadTemplate: { days: 1, note: randomText(random, 20) } } : {}),
          votes: random() < 0.3 ? [{ voter: 'UVOTER', choice: 'approve', at: NOW - 10 }] : [],
          policy: { ...POLICY, quorum: 1 + Math.floor(random() * 3) },
        });
        return state === 'pending'
          ? base
          : decided(base, state, random() < 0.5 ? 'system' : 'UDECIDER', randomText(random, 900));
      });
      const resume = pick(random, [
        { state: 'idle' as const, attempts: 0 },
        { state: 'failed' as const, attempts: 1, lastError: randomText(random, 2_000) },
        { state: 'resuming' as const, attempts: 1 },
      ]);
      const view = pauseView(gates, {
        resume,
        adk: { appName: randomText(random, 40), userId: 'u', sessionId: 's' },
      });
      const card = render(view);
      expect(blocksTextLength(card.blocks)).toBeLessThanOrEqual(11_000);
      expect(card.text.length).toBeLessThanOrEqual(300);
      const pending = new Set(
        view.gates
          .filter(({ state }) => state === 'pending')
          .map((gate) => gate.confirmationCallId),
      );
      for (const [callId, paths] of decisionPaths(view, card.blocks)) {
        if (pending.has(callId)) expect(paths.length, `round ${round}`).toBeGreaterThan(0);
      }
      const approveAll = buttons(card.blocks).some(
        ({ actionId }) => actionId === ACTION_IDS.approveAll,
      );
      expect(approveAll, `round ${round}`).toBe(pending.size >= 2);
    }
  });
});

describe('what a decision sends, and what came of it (#12)', () => {
  const window = { start: '2026-11-23T22:00:00Z', durationMinutes: 60, notifyCustomers: true };

  it('shows the payload plain Approve sends, before anyone edits', () => {
    const text = allText(render(pauseView([vacationGate(0, window)])).blocks);
    expect(text).toContain('*Approve will send:*\n```\n{\n  "start": "2026-11-23T22:00:00Z"');
    expect(text).toContain('"durationMinutes": 60');
  });

  it('shows what the approver changed, value by value', () => {
    const gate = vacationGate(0, window);
    const edited: GateRecord = {
      ...decided(gate, 'approved'),
      decision: { by: 'UDECIDER', at: NOW, payload: { ...window, durationMinutes: 90 } },
    };
    const text = allText(render(pauseView([edited])).blocks);
    expect(text).toContain('• durationMinutes: ~60~ → *90*');
    expect(text).not.toContain('• start');
  });

  it('names every approver of a quorum', () => {
    const gate = gateRecord({ policy: { ...POLICY, quorum: 2 } });
    const approved: GateRecord = {
      ...decided(gate, 'approved', 'UCAROL'),
      votes: [
        { voter: 'UBOB', choice: 'approve', at: NOW - 9_000 },
        { voter: 'UCAROL', choice: 'approve', at: NOW - 5_000 },
      ],
    };
    expect(allText(render(pauseView([approved])).blocks)).toMatch(
      /Approved by <@UBOB> and <@UCAROL>/,
    );
  });

  it('shows an approved call that then failed in red, never as ✅', () => {
    const gate = decided(gateRecord(), 'approved');
    const view = pauseView([gate], { resume: { state: 'resumed', attempts: 1, at: NOW } });
    const card = renderApprovalCard(view, {
      now: NOW,
      toolOutcomes: new Map([[gate.originalCall.id, 'failed']]),
    });
    expectValidMessage(card);
    const text = allText(card.blocks);
    expect(text).toContain(':red_circle: Approved, but the call *failed*');
    expect(text).toContain(':red_circle: Agent resumed, but');
    expect(text).not.toContain(':white_check_mark:');
  });

  it('says the agent was told, not resumed with a ✅, when everything was rejected', () => {
    const view = pauseView([decided(gateRecord(), 'rejected')], {
      resume: { state: 'resumed', attempts: 1, at: NOW },
    });
    const text = allText(render(view).blocks);
    expect(text).toContain(':speech_balloon: Agent told: nothing was approved');
    expect(text).not.toContain(':white_check_mark:');
  });

  it('says who may approve and the expiry once when every pending gate shares them', () => {
    const text = allText(
      render(pauseView([gateRecord({ index: 0 }), gateRecord({ index: 1 })])).blocks,
    );
    expect(text.split('Who may approve').length - 1).toBe(1);
    expect(text.split('Expires').length - 1).toBe(1);
  });

  it('asks before Approve when the rule says confirm: true', () => {
    const gate = gateRecord({ policy: { ...POLICY, confirm: true } });
    const card = render(pauseView([gate]));
    const approve = JSON.stringify(card.blocks);
    expect(approve).toContain(
      '"confirm":{"title":{"type":"plain_text","text":"Approve this call?"',
    );
    const plainCard = JSON.stringify(render(pauseView([gateRecord()])).blocks);
    expect(plainCard).not.toContain('Approve this call?');
  });

  it('away from its run: the prompt, where it was asked and a link to the run', () => {
    const view = pauseView([gateRecord()], {
      runThread: { channelId: 'C0OPS', threadTs: '1.2' },
      origin: { prompt: 'pay <!channel> now', permalink: 'https://x.slack.com/archives/C0OPS/p12' },
    });
    const text = allText(render(view).blocks);
    expect(text).toContain(
      'requested by <@UREQUESTER> in <#C0OPS> (<https://x.slack.com/archives/C0OPS/p12|open the run>)',
    );
    expect(text).toContain('> pay &lt;!channel&gt; now');
  });
});

describe('one word for one fact (#34)', () => {
  type FoundConfirm = { actionId: string; title: string; text: string; style?: string };
  const isRecord = (node: unknown): node is Record<string, unknown> =>
    typeof node === 'object' && node !== null;
  const textOf = (node: unknown): string =>
    isRecord(node) && typeof node.text === 'string' ? node.text : '';

  /** Every `confirm` dialog in the blocks, with the action it guards. */
  function confirms(blocks: unknown): FoundConfirm[] {
    const found: FoundConfirm[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) {
        for (const item of node) walk(item);
        return;
      }
      if (!isRecord(node)) return;
      const { confirm } = node;
      if (isRecord(confirm) && typeof node.action_id === 'string') {
        found.push({
          actionId: node.action_id,
          title: textOf(confirm.title),
          text: textOf(confirm.text),
          ...(typeof confirm.style === 'string' ? { style: confirm.style } : {}),
        });
      }
      for (const value of Object.values(node)) walk(value);
    };
    walk(blocks);
    return found;
  }

  it('each grant button’s confirm names the call and the scope it approves beyond it', () => {
    const gate = gateRecord({
      policy: { ...POLICY, confirm: true, grants: ['session', 3_600_000, 'exactArgs'] },
    });
    const found = confirms(render(pauseView([gate])).blocks);
    const byAction = new Map(found.map((confirm) => [confirm.actionId, confirm]));
    expect(byAction.get(ACTION_IDS.approve)?.text).toBe(
      'Approve transfer_money? The agent runs it at once.',
    );
    expect(byAction.get(ACTION_IDS.grantSession)?.text).toContain(
      'Approve transfer_money for this session?',
    );
    expect(byAction.get(ACTION_IDS.grantSession)?.text).toContain(
      'later calls of it in this session run without asking',
    );
    expect(byAction.get(ACTION_IDS.grantTime)?.text).toContain(
      'Approve transfer_money for 1 hour?',
    );
    expect(byAction.get(ACTION_IDS.grantExactArgs)?.text).toContain(
      'Approve transfer_money for these exact arguments?',
    );
  });

  it('a tool name in a confirm is escaped, and each confirm fits Slack’s 300 characters', () => {
    const gate = gateRecord({
      originalCall: { id: 'c1', name: `pay<!channel>&${'x'.repeat(400)}`, args: {} },
      policy: { ...POLICY, confirm: true, grants: ['session'] },
    });
    const asked = confirms(render(pauseView([gate])).blocks).filter(
      ({ actionId }) => actionId !== ACTION_IDS.withdraw,
    );
    expect(asked.length).toBeGreaterThanOrEqual(2);
    for (const confirm of asked) {
      expect(confirm.text).toContain('pay&lt;!channel&gt;&amp;');
      expect(confirm.text.length).toBeLessThanOrEqual(300);
      expect(confirm.title.length).toBeLessThanOrEqual(100);
    }
  });

  it('Approve all’s confirm names the calls it approves', () => {
    const card = render(
      pauseView([
        gateRecord({ index: 0 }),
        gateRecord({ index: 1, originalCall: { id: 'c2', name: 'pay_invoice', args: {} } }),
      ]),
    );
    const all = confirms(card.blocks).find(({ actionId }) => actionId === ACTION_IDS.approveAll);
    expect(all?.text).toBe('Approve transfer_money and pay_invoice? The agent runs them at once.');
  });

  it('a row’s menu, whose one confirm guards every choice, does not ask “Approve?” for a Reject', () => {
    const gates = manyGates(30, (index) =>
      gateRecord({ index, policy: { ...POLICY, confirm: true } }),
    );
    const card = render(pauseView(gates));
    const menu = confirms(card.blocks).find(({ actionId }) => actionId === ACTION_IDS.gateMenu);
    expect(menu?.title).toBe('Decide transfer_money?');
    expect(menu?.text).toContain('If you chose Approve, the agent runs transfer_money at once.');
  });

  it('Withdraw, which calls the request off, asks in red', () => {
    const withdraw = confirms(render(pauseView([gateRecord()])).blocks).find(
      ({ actionId }) => actionId === ACTION_IDS.withdraw,
    );
    expect(withdraw?.style).toBe('danger');
  });

  it('a call the policy denied reads “Denied by policy rule”, never “Rejected”', () => {
    const card = render(
      pauseView([
        decided(gateRecord(), 'rejected', 'policy:no-invoices', 'Invoices go through AP'),
        gateRecord({ index: 1 }),
      ]),
    );
    const text = allText(card.blocks);
    expect(text).toContain(':no_entry: Denied by policy');
    expect(text).toMatch(/Denied by policy rule `no-invoices` <!date/);
    expect(text).not.toContain('Rejected');
    const decidedCard = render(
      pauseView([
        decided(gateRecord(), 'rejected', 'policy:no-invoices'),
        decided(gateRecord({ index: 1 }), 'rejected'),
      ]),
    );
    expect(decidedCard.text).toBe('Approval request decided: 1 denied, 1 rejected');
  });

  it('a cancel by the agent names the agent and its key; a question withdrawn by its requester reads “Withdrawn by”', () => {
    const cancelled = render(
      pauseView([decided(gateRecord(), 'cancelled', 'api:runbook', 'the alert cleared')]),
    );
    const text = allText(cancelled.blocks);
    expect(text).toContain(':no_entry_sign: Cancelled by the agent');
    expect(text).toMatch(/Cancelled by the agent \(API key `runbook`\) <!date/);
    expect(text).not.toContain('@api:runbook');
    expect(text).not.toContain('Withdrawn');
    const question = allText(
      render(pauseView([decided(inputGate(), 'cancelled', 'UALICE')])).blocks,
    );
    expect(question).toMatch(/Withdrawn by <@UALICE>/);
    expect(question).not.toContain('Cancelled');
  });

  it('a grant’s approval among the votes reads grant `gr_…`, never @grant:gr_…', () => {
    const gate: GateRecord = {
      ...decided(gateRecord(), 'approved', 'grant:gr_0123456789ab'),
      votes: [{ voter: 'grant:gr_0123456789ab', choice: 'approve', at: NOW - 5_000 }],
    };
    const text = allText(render(pauseView([gate])).blocks);
    expect(text).toContain('Approved by grant `gr_0123456789ab`');
    expect(text).not.toContain('@grant:');
  });

  it('the undo window’s line gives the time with seconds: a window is seconds long', () => {
    const gate = gateRecord({ policy: { ...POLICY, undoWindowMs: 30_000 } });
    const view = pauseView([decided(gate, 'approved')], {
      resume: { state: 'idle', attempts: 0, holdUntil: NOW + 30_000 },
    });
    const text = allText(render(view).blocks);
    expect(text).toMatch(/the agent resumes <!date\^\d+\^\{date_short_pretty\} at \{time_secs\}\|/);
    expect(text).toContain('a 30s undo window');
  });

  describe('a pause the agent fetches itself (poll mode)', () => {
    const polled = (notes?: PauseNotes) => {
      const gate = decided(gateRecord(), 'approved');
      const view = pauseView([gate], {
        resume: { state: 'resumed', attempts: 1, at: NOW },
        external: { keyName: 'runbooks', resume: { mode: 'poll' } },
      });
      const card = renderApprovalCard(view, {
        now: NOW,
        ...(notes === undefined ? {} : { notes }),
      });
      expectValidMessage(card);
      return { text: allText(card.blocks), fallback: card.text, gate };
    };

    it('says the decision is ready for the agent, not that the agent resumed, until it takes it', () => {
      const { text, fallback } = polled({ outcomes: {} });
      expect(text).toContain('Decision ready for the agent');
      expect(text).not.toContain('resumed');
      expect(fallback).not.toContain('resumed');
    });

    it('says the agent took it once it claims a call, and what it reported', () => {
      const { gate } = polled();
      const claimed = polled({
        outcomes: {},
        claims: { [gate.confirmationCallId]: { by: 'api:runbooks', at: NOW } },
      });
      expect(claimed.text).toContain('The agent took the decision');
      const reported = polled({
        outcomes: { [gate.confirmationCallId]: { status: 'executed', at: NOW } },
      });
      expect(reported.text).toContain('The agent took the decision');
      expect(reported.text).not.toContain('Decision ready');
    });
  });
});
