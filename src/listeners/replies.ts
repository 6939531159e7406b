import type { RespondFn } from '@slack/bolt';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';

/**
 * Answers only the person who acted, through the interaction's `response_url` (which works even
 * where the bot is not a member). A failure is logged: the reply is a courtesy, the decision is
 * already recorded or refused.
 */
export function privateReply(respond: RespondFn, log: Log) {
  return async (message: SlackMessage): Promise<void> => {
    try {
      await respond({ response_type: 'ephemeral', replace_original: false, ...message });
    } catch (error) {
      log.warn('could not reply to the person privately', { error: errorMessage(error) });
    }
  };
}
