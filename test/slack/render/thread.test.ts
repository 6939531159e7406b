import { blocksTextLength } from '@adk-slack-approvals/block-kit';
import { describe, expect, it } from 'vitest';
import type { SlackMessage } from '../../../src/slack/codecs/block-kit.js';
import {
  markdownToMrkdwn,
  renderAgentReply,
  renderCardElsewhere,
  renderResumeFailed,
  renderRunError,
  renderStreamWarning,
  renderThreadRoot,
  renderToolSummary,
} from '../../../src/slack/render/thread.js';
import { allText, expectInert, expectValidMessage } from '../blocks.js';
import { randomText, seeded } from '../random.js';

const HOSTILE = '<!channel> <@U123> <https://evil.example|https://bank.example> &amp;';

function valid(message: SlackMessage): SlackMessage {
  expectValidMessage(message);
  expectInert(message.blocks, message.text);
  return message;
}

describe('the thread root', () => {
  it('says who asked which app what, the prompt escaped', () => {
    const root = valid(
      renderThreadRoot({ userId: 'U1', appName: 'ops', prompt: `restart ${HOSTILE}` }),
    );
    expect(allText(root.blocks)).toBe(
      '<@U1> asked *ops*:\nrestart &lt;!channel&gt; &lt;@U123&gt; &lt;https://evil.example|https://bank.example&gt; &amp;amp;',
    );
    expect(root.text).not.toContain('<@');
  });

  it('cuts a very long prompt and says so', () => {
    const root = valid(
      renderThreadRoot({ userId: 'U1', appName: 'ops', prompt: 'p'.repeat(50_000) }),
    );
    expect(allText(root.blocks)).toContain('… cut: showing');
  });
});

describe('a bidi control in the agent reply', () => {
  it('is shown visibly', () => {
    const message = valid(renderAgentReply({ text: 'Sent to DE00\u202E1234\u202C5678.' }));
    expect(allText(message.blocks)).toContain('DE00⟨U+202E⟩1234⟨U+202C⟩5678');
  });
});

describe('the agent reply', () => {
  it('keeps Markdown readable as mrkdwn without live links', () => {
    expect(
      markdownToMrkdwn('## Plan\n**Restart** the `api`\n- one\n[docs](https://x.example)'),
    ).toBe('*Plan*\n*Restart* the `api`\n• one\ndocs (https://x.example)');
  });

  it('escapes what the agent says', () => {
    const reply = valid(renderAgentReply({ text: `Done. ${HOSTILE}` }));
    expect(allText(reply.blocks)).toContain('&lt;!channel&gt;');
  });

  it('splits a long reply into sections and cuts beyond one message, saying how much was shown', () => {
    const text = Array.from({ length: 3_000 }, (_, i) => `line ${i} <b>&</b>`).join('\n');
    const reply = valid(renderAgentReply({ text }));
    expect(reply.blocks?.length).toBeGreaterThan(2);
    expect(allText(reply.blocks)).toMatch(/… cut: showing [\d,]+ of [\d,]+ characters$/);
    expect(blocksTextLength(reply.blocks)).toBeLessThanOrEqual(11_100);
  });

  it('closes a code fence at a section break and opens it again in the next', () => {
    const text = `\`\`\`\n${'x = 1\n'.repeat(1_000)}\`\`\``;
    const reply = valid(renderAgentReply({ text }));
    for (const section of reply.blocks ?? []) {
      const fences = allText([section]).match(/```/g)?.length ?? 0;
      expect(fences % 2).toBe(0);
    }
  });

  it('says so when the agent gave no reply', () => {
    expect(valid(renderAgentReply({ text: '  ' })).text).toBe(
      'The agent finished without a reply.',
    );
  });

  it('stays valid for random replies', () => {
    const random = seeded(5);
    for (let round = 0; round < 40; round += 1) {
      valid(renderAgentReply({ text: randomText(random, Math.floor(random() ** 2 * 60_000)) }));
    }
  });
});

describe('tool summaries, errors and notes', () => {
  it('lists the tools that ran with their outcome', () => {
    const summary = valid(
      renderToolSummary([
        { name: 'lookup_service', ok: true },
        { name: 'check_status', ok: false },
      ]),
    );
    expect(allText(summary.blocks)).toBe('ran `lookup_service` ✓, `check_status` ✗ error');
    expect(summary.text).toBe('Ran 2 tools, 1 failed');
  });

  it('keeps a summary of many tools within limits', () => {
    const runs = Array.from({ length: 500 }, (_, i) => ({
      name: `tool_${i}${HOSTILE}`,
      ok: i % 2 === 0,
    }));
    expect(allText(valid(renderToolSummary(runs)).blocks)).toMatch(/and \d+ more$/);
  });

  it('words each run error, escaping what ADK said', () => {
    expect(valid(renderRunError({ kind: 'unreachable' })).text).toBe(
      'Could not reach the agent server.',
    );
    expect(allText(valid(renderRunError({ kind: 'http', status: 503 })).blocks)).toContain(
      'HTTP 503',
    );
    const frame = valid(renderRunError({ kind: 'error_frame', message: `boom ${HOSTILE}` }));
    expect(allText(frame.blocks)).toContain('```\nboom &lt;!channel&gt;');
    expect(allText(valid(renderRunError({ kind: 'timeout' })).blocks)).toContain('took too long');
    const refused = valid(renderRunError({ kind: 'not_applied', reason: 'arguments_mismatch' }));
    expect(allText(refused.blocks)).toContain('refused the decision (`arguments_mismatch`)');
    const unreadable = valid(renderRunError({ kind: 'unreadable', message: HOSTILE }));
    expect(allText(unreadable.blocks)).toContain('&lt;!channel&gt;');
  });

  it('says a failed resume keeps the decisions and points at Retry', () => {
    const failed = valid(renderResumeFailed({ kind: 'unreachable' }));
    expect(allText(failed.blocks)).toContain('Could not reach the agent server.');
    expect(allText(failed.blocks)).toContain('Press *Retry* on the card');
  });

  it('shows a stream warning escaped', () => {
    const warning = valid(renderStreamWarning(`bad frame ${HOSTILE}`));
    expect(allText(warning.blocks)).toContain('bad frame &lt;!channel&gt;');
    expect(warning.text).not.toContain('<');
  });

  it('links to a card posted in another channel', () => {
    const note = valid(
      renderCardElsewhere({
        channelId: 'C0APPROVALS',
        permalink: 'https://acme.slack.com/archives/C0APPROVALS/p1',
      }),
    );
    expect(allText(note.blocks)).toContain(
      'posted in <#C0APPROVALS> for its approvers. <https://acme.slack.com/archives/C0APPROVALS/p1|Open the request>',
    );
    const odd = valid(renderCardElsewhere({ channelId: 'C1>', permalink: 'https://x|<!channel>' }));
    expect(allText(odd.blocks)).toBe(
      ':raised_hand: Approval needed: the request was posted in another channel for its approvers.',
    );
  });

  it('says a question posted in another channel needs an answer, not an approval', () => {
    const note = valid(renderCardElsewhere({ channelId: 'C0APPROVALS', asking: 'input' }));
    expect(note.text).toBe(
      'Input needed: the request was posted for those who may answer in another channel.',
    );
    expect(allText(note.blocks)).toBe(
      ':speech_balloon: Input needed: the request was posted in <#C0APPROVALS> for those who may answer.',
    );
  });
});
