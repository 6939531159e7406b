import { describe, expect, it } from 'vitest';
import { escalationText } from '../../../src/slack/render/gate-lines.js';
import { renderReminder } from '../../../src/slack/render/reminder-message.js';
import { gateRecord, NOW } from '../../support/records.js';

describe('renderReminder', () => {
  it('names the tool, its arguments, who asked, links the card and says when it expires', () => {
    const { text } = renderReminder({
      kind: 'remind',
      tool: 'transfer_money',
      args: { to: 'acct-9 <@U0BOB>', amount: 500 },
      requester: 'U0ALICE0001',
      permalink: 'https://example.slack.com/archives/C0OPS/p1',
      expiresAt: NOW,
    });
    expect(text).toContain('Reminder: <@U0ALICE0001> asks to run `transfer_money`');
    expect(text).toContain('to: acct-9 &lt;@U0BOB&gt;, amount: 500');
    expect(text).toContain('<https://example.slack.com/archives/C0OPS/p1|Open the request>');
    expect(text).toMatch(/expires <!date\^/);
  });

  it('escapes a hostile tool name and drops a link that is not Slack-shaped', () => {
    const { text } = renderReminder({
      kind: 'escalate',
      tool: '<!channel> & <@U1>',
      args: {},
      requester: 'U0ALICE0001',
      permalink: 'javascript:alert(1)',
      waited: '10m',
    });
    expect(text).toContain('Escalated to you after 10m');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('&lt;!channel&gt; &amp; &lt;@U1&gt;');
    expect(text).not.toContain('javascript:');
  });
});

describe('escalationText', () => {
  const gate = gateRecord();
  const escalating = {
    ...gate,
    policy: {
      ...gate.policy,
      escalateAfterMs: 600_000,
      escalateTo: [{ kind: 'usergroup' as const, id: 'S0LEADS' }],
    },
  };

  it('says when the gate will escalate, then that it has, from escalateAfter exactly', () => {
    const at = escalating.createdAt + 600_000;
    expect(escalationText(escalating, at - 1)).toBe('Escalates to <!subteam^S0LEADS> after 10m');
    expect(escalationText(escalating, at)).toBe(
      ':rotating_light: Escalated to <!subteam^S0LEADS> after 10m',
    );
  });

  it('says nothing for a gate without escalation', () => {
    expect(escalationText(gate, Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });
});
