import { describe, expect, it } from 'vitest';
import type { Grant } from '../../../src/approvals/grants.js';
import type { GateRecord, PauseView } from '../../../src/approvals/records.js';
import { ACTION_IDS, parseButtonValue } from '../../../src/slack/codecs/action-ids.js';
import {
  type HomeDecision,
  type HomeGate,
  type HomeInput,
  renderHomeView,
} from '../../../src/slack/render/home-view.js';
import { gateRecord, NOW, POLICY, pauseView } from '../../support/records.js';
import { allText, buttons, expectInert, expectValidView } from '../blocks.js';

const HOSTILE = '<!channel> <@U123> <https://evil.example|https://bank.example> &amp; `x`';
const PERMALINK = 'https://sandbox.slack.com/archives/C0APPROVALS/p1795326457000100';

function item(view: PauseView, index = 0): HomeGate {
  const gate = view.gates[index];
  if (gate === undefined) throw new Error('no such gate');
  return { view, gate, cardPermalink: PERMALINK };
}

function grant(overrides: Partial<Grant> = {}): Grant {
  return {
    id: 'gr_000000000001',
    app: 'payments',
    tool: 'transfer_money',
    requester: 'UALICE',
    rule: 'transfers',
    scope: 'session',
    sessionKey: 'UALICE/s1',
    granter: 'UBOB',
    pauseId: 'p1',
    callId: 'c1',
    createdAt: NOW,
    expiresAt: NOW + 3_600_000,
    uses: 0,
    ...overrides,
  };
}

function render(input: Partial<HomeInput>) {
  const home = renderHomeView({
    waiting: [],
    waitingMore: 0,
    requests: [],
    requestsMore: 0,
    recent: [],
    now: NOW,
    ...input,
  });
  expectValidView(home);
  expectInert(home.blocks);
  return home;
}

describe('the App Home view', () => {
  it('lists a waiting gate with what the agent wants to do, who asked, Approve / Reject and a link to the card', () => {
    const view = pauseView([
      gateRecord({ originalCall: { id: 'c1', name: 'transfer_money', args: { amount: 250 } } }),
    ]);
    const home = render({ waiting: [item(view)] });
    expect(home.type).toBe('home');
    const text = allText(home.blocks);
    expect(text).toContain('Waiting for you');
    expect(text).toContain('<@UREQUESTER> asks to run `transfer_money`');
    expect(text).toContain('amount: 250');
    expect(text).toContain(`<${PERMALINK}|Open card>`);
    const found = buttons(home.blocks);
    expect(found.map((button) => button.actionId)).toEqual([
      ACTION_IDS.homeApprove,
      ACTION_IDS.homeReject,
    ]);
    // Opaque ids only: the click is checked against the store, never against the button.
    expect(found.map((button) => parseButtonValue(button.value))).toEqual([
      { pauseId: view.pause.id, callId: view.gates[0]?.confirmationCallId },
      { pauseId: view.pause.id, callId: view.gates[0]?.confirmationCallId },
    ]);
  });

  it('shows hostile arguments as inert text, with bidi controls visible', () => {
    const view = pauseView([
      gateRecord({
        originalCall: {
          id: 'c1',
          name: 'transfer_money',
          args: { note: HOSTILE, iban: 'DE00\u202E1234' },
        },
      }),
    ]);
    const home = render({ waiting: [item(view)], requests: [item(view)] });
    expect(allText(home.blocks)).toContain('DE00⟨U+202E⟩1234');
    expect(JSON.stringify(home)).not.toMatch(/[\u202e]/);
  });

  it('a refused click is said at the top, escaped', () => {
    const home = render({ notice: 'You may not approve <!channel>' });
    expect(allText(home.blocks)).toContain('You may not approve &lt;!channel&gt;');
  });

  it('stays within 100 blocks with many gates, and says how many more there are', () => {
    const views = Array.from({ length: 150 }, (_, index) =>
      pauseView([
        gateRecord({
          index,
          originalCall: { id: `c${index}`, name: 'transfer_money', args: { n: index } },
        }),
      ]),
    );
    const home = render({
      notice: 'That click was refused.',
      grants: Array.from({ length: 12 }, (_, index) =>
        grant({ id: `gr_${String(index).padStart(12, '0')}` }),
      ),
      waiting: views.map((view) => item(view)),
      waitingMore: 0,
      delegations: {
        outgoing: {
          delegator: 'UBOB',
          delegate: 'UCAROL',
          startsAt: NOW,
          endsAt: NOW + 1,
          setAt: NOW,
        },
        incoming: Array.from({ length: 20 }, (_, index) => ({
          delegator: `UDELEGATOR${index}`,
          delegate: 'UBOB',
          startsAt: NOW,
          endsAt: NOW + 1,
          setAt: NOW,
        })),
      },
      requests: views.slice(0, 40).map((view) => item(view)),
      requestsMore: 7,
      recent: views.slice(0, 30).map((view) => ({
        event: 'approved' as const,
        by: 'UAPPROVER1',
        at: NOW,
        gate: view.gates[0] ?? gateRecord(),
        requester: view.pause.requester,
        cardPermalink: PERMALINK,
      })),
    });
    expect(home.blocks.length).toBeLessThanOrEqual(100);
    const text = allText(home.blocks);
    expect(text).toContain('…and 130 more');
    expect(text).toContain('…and 37 more');
    expect(text).toContain('…and 7 more, expiring later.');
  });

  it('lists a grant in force with its scope, uses and expiry, escaped, and Revoke asking twice', () => {
    const home = render({ grants: [grant({ tool: HOSTILE, uses: 3 })] });
    const text = allText(home.blocks);
    expect(text).toContain('Grants in force');
    expect(text).toContain('<@UBOB> approved it for this session');
    expect(text).toContain('for <@UALICE>');
    expect(text).toContain('3 uses');
    expect(text).toContain('&lt;!channel&gt;');
    const [revoke] = buttons(home.blocks);
    expect(revoke).toMatchObject({
      actionId: ACTION_IDS.homeRevokeGrant,
      value: 'gr_000000000001',
    });
    expect(JSON.stringify(home.blocks)).toContain('Revoke this grant?');
    expect(allText(render({}).blocks)).not.toContain('Grants in force');
  });

  it('says so when nothing waits, nothing is asked and nothing was decided', () => {
    const text = allText(render({}).blocks);
    expect(text).toContain('Nothing waits for your decision.');
    expect(text).toContain('None of your requests waits on anyone.');
    expect(text).toContain('No decisions yet.');
  });
});

describe('the App Home says one thing for one fact (#34)', () => {
  const approverPolicy = { ...POLICY, approvers: [{ kind: 'user' as const, id: 'UBOB' }] };

  function recentLine(decision: Omit<HomeDecision, 'requester' | 'cardPermalink'>): string {
    return allText(
      render({
        recent: [{ requester: 'UALICE', cardPermalink: undefined, ...decision }],
      }).blocks,
    );
  }

  it('Home Approve asks first, as the card does, naming what it approves', () => {
    const view = pauseView([gateRecord({ policy: { ...approverPolicy, confirm: true } })]);
    const home = render({ waiting: [item(view)] });
    const approve = JSON.stringify(home.blocks);
    expect(approve).toContain('"text":"Approve transfer_money? The agent runs it at once."');
    const plain = render({ waiting: [item(pauseView([gateRecord()]))] });
    expect(JSON.stringify(plain.blocks)).not.toContain('"confirm"');
  });

  it('Revoke asks in red: it takes a grant away', () => {
    const home = render({ grants: [grant()] });
    const section = home.blocks.find((block) => block.type === 'section' && 'accessory' in block);
    const accessory = section !== undefined && 'accessory' in section ? section.accessory : {};
    expect(accessory).toMatchObject({
      action_id: ACTION_IDS.homeRevokeGrant,
      confirm: { title: { text: 'Revoke this grant?' }, style: 'danger' },
    });
  });

  it('an approval undone in its window reads “approved …, then undone”, never “pending by”', () => {
    const gate = gateRecord({
      reopened: { at: NOW - 1_000, voter: 'UBOB', why: 'undone', kind: 'undo' },
    });
    const line = recentLine({ event: 'approved', by: 'UBOB', at: NOW - 5_000, gate });
    expect(line).toMatch(
      /`transfer_money` :white_check_mark: approved by <@UBOB> <!date[^>]*>, then undone by <@UBOB>/,
    );
    expect(line).not.toContain('pending');
  });

  it('a vote toward a quorum is listed: who approved so far, then everyone once it is approved', () => {
    const quorum = { ...approverPolicy, quorum: 2 };
    const waiting = gateRecord({
      policy: quorum,
      votes: [{ voter: 'UCAROL', choice: 'approve', at: NOW - 5_000 }],
    });
    expect(recentLine({ event: 'voted', by: 'UCAROL', at: NOW - 5_000, gate: waiting })).toMatch(
      /`transfer_money` :ballot_box_with_check: <@UCAROL> approved <!date[^>]*> · 1 of 2 approvals/,
    );
    const approved: GateRecord = {
      ...waiting,
      state: 'approved',
      votes: [...waiting.votes, { voter: 'UBOB', choice: 'approve', at: NOW - 1_000 }],
      decision: { by: 'UBOB', at: NOW - 1_000 },
    };
    expect(recentLine({ event: 'voted', by: 'UCAROL', at: NOW - 5_000, gate: approved })).toContain(
      '<@UCAROL> approved',
    );
    expect(recentLine({ event: 'voted', by: 'UCAROL', at: NOW - 5_000, gate: approved })).toContain(
      'approved by <@UCAROL> and <@UBOB>',
    );
    expect(
      recentLine({ event: 'approved', by: 'UBOB', at: NOW - 1_000, gate: approved }),
    ).toContain(':white_check_mark: approved by <@UCAROL> and <@UBOB>');
  });

  it('a vote is not listed again beside its gate’s decision, which names every approver', () => {
    const gate: GateRecord = gateRecord({
      policy: { ...approverPolicy, quorum: 2 },
      state: 'approved',
      votes: [
        { voter: 'UCAROL', choice: 'approve', at: NOW - 5_000 },
        { voter: 'UBOB', choice: 'approve', at: NOW - 1_000 },
      ],
      decision: { by: 'UBOB', at: NOW - 1_000 },
    });
    const base = { gate, requester: 'UALICE', cardPermalink: undefined };
    const home = render({
      recent: [
        { ...base, event: 'approved', by: 'UBOB', at: NOW - 1_000 },
        { ...base, event: 'voted', by: 'UBOB', at: NOW - 1_000 },
        { ...base, event: 'voted', by: 'UCAROL', at: NOW - 5_000 },
      ],
    });
    const text = allText(home.blocks);
    expect(text.split('`transfer_money`').length - 1).toBe(1);
    expect(text).toContain('approved by <@UCAROL> and <@UBOB>');
  });

  it('a policy’s denial, the agent’s cancel and a withdrawal each read as what they are', () => {
    const gate = gateRecord();
    const denied = recentLine({ event: 'rejected', by: 'policy:no-invoices', at: NOW, gate });
    expect(denied).toContain(':no_entry: denied by policy rule `no-invoices`');
    expect(denied).not.toContain('rejected');
    const cancelled = recentLine({ event: 'cancelled', by: 'api:runbook', at: NOW, gate });
    expect(cancelled).toContain(':no_entry_sign: cancelled by the agent (API key `runbook`)');
    expect(cancelled).not.toContain(':heavy_multiplication_x:');
    const withdrawn = recentLine({ event: 'withdrawn', by: 'UALICE', at: NOW, gate });
    expect(withdrawn).toContain(':leftwards_arrow_with_hook: withdrawn by <@UALICE>');
  });
});
