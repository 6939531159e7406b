import type { SlackMessage } from '../codecs/block-kit.js';
import { inlineCode } from '../codecs/escape.js';

/**
 * The thread notice of a run stopped because the agent asked again for calls it had just been
 * given an approval for, instead of running them (see workflow/re-requests.ts).
 */
export function renderReRequest(tools: readonly string[]): SlackMessage {
  const names = [...new Set(tools)].map((tool) => inlineCode(tool, 60)).join(', ');
  return {
    text: 'The agent asked again for an approved call instead of running it: the run stops',
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `:repeat: The agent asked again for ${names}, with the same arguments, instead of running it after the approval: nothing ran. Approving again would only bring the same request back (an ADK JS Workflow LlmAgent node re-runs its input when it is resumed), so no second card was posted and this run stops here. A gated tool works from a plain LlmAgent.`,
        },
      },
    ],
  };
}
