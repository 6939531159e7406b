import type { SlackPort } from '../../src/slack/transport/port.js';

/**
 * A Slack port for workflow unit tests: every call succeeds and does nothing, except those a test
 * replaces. Posts answer with the channel and ts `1.000100`.
 */
export function quietSlackPort(overrides: Partial<SlackPort> = {}): SlackPort {
  return {
    async postMessage(input) {
      return { channel: input.channel, ts: '1.000100' };
    },
    async updateMessage() {},
    async postEphemeral() {},
    async openView() {},
    async updateView() {},
    async publishHome() {},
    async getPermalink() {
      return 'https://example.slack.com/p1';
    },
    async openDirectMessage(user) {
      return `D-${user}`;
    },
    async findOwnMessage() {
      return undefined;
    },
    ...overrides,
  };
}
