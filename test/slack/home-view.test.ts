import { describe, expect, it } from 'vitest';
import type { Grant } from '../../src/approvals/grants.js';
import type { PauseView } from '../../src/approvals/records.js';
import { ACTION_IDS, parseButtonValue } from '../../src/slack/action-ids.js';
import { type HomeGate, type HomeInput, renderHomeView } from '../../src/slack/home-view.js';
import { gateRecord, NOW, pauseView } from '../support/records.js';
import { allText, buttons, expectInert, expectValidView } from './blocks.js';

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
      requests: views.slice(0, 40).map((view) => item(view)),
      requestsMore: 7,
      recent: views.slice(0, 30).map((view) => ({
        tool: 'transfer_money',
        state: 'approved' as const,
        by: 'UAPPROVER1',
        at: NOW,
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
