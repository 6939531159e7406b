import type { SlackMessage } from '../codecs/block-kit.js';
import { escapeWithin, inlineCode } from '../codecs/escape.js';

/**
 * Thread notices for what an agent asks of people that this app does not turn into a card:
 * credentials (never collected in Slack) and confirmations ADK raised no answerable request for
 * (input requests are cards: see input-card.ts). Each names the tool or agent, escaped, and none reads as a tool that ran.
 */

const HINT_MAX = 500;

function notice(line: string, fallback: string): SlackMessage {
  return { text: fallback, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: line } }] };
}

function toolList(tools: readonly string[]): string {
  return tools.map((tool) => inlineCode(tool, 60)).join(', ');
}

/** The agent asked for credentials; this app never collects secrets in Slack. */
export function renderCredentialRequest(tools: readonly string[]): SlackMessage {
  return notice(
    `:closed_lock_with_key: The agent asked for credentials for ${toolList(tools)}. This app never collects credentials in Slack, so the tool has not run: give the agent its credentials where it runs, then ask again.`,
    'The agent asked for credentials, which this app does not collect in Slack',
  );
}

/** A tool asked for a confirmation, but the agent server raised no request that can be answered. */
export function renderUnraisedConfirmation(input: { tool: string; hint?: string }): SlackMessage {
  const hint =
    input.hint === undefined
      ? ''
      : `\n> ${escapeWithin(input.hint, HINT_MAX).replace(/\n/g, '\n> ')}`;
  // Every ADK (JS 2.0, Python, Java, Go) raises adk_request_confirmation only for a call the
  // model made, on its first ask; a resumed tool's second ask, or a Workflow ToolNode's, stays
  // in requestedToolConfirmations.
  return notice(
    `:warning: ${inlineCode(input.tool, 60)} asked for a confirmation, but the agent raised no request that can be answered, so it cannot be approved from Slack. The tool has not done what it asked about.${hint}\nADK raises a confirmation request only for a tool call the model makes, on its first ask (not for a tool that asks again once approved, nor for a Workflow ToolNode): an agent that needs two sign-offs can gate two tool calls, or this app's policy can require two approvals (\`quorum: 2\`) of one.`,
    'A tool asked for a confirmation that cannot be answered from Slack',
  );
}
