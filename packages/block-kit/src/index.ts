/**
 * Slack's Block Kit limits and a validator that applies them: used by the app (to build cards
 * within the limits) and by the Slack sandbox (to refuse what Slack would refuse).
 */
export { LIMITS } from './limits.js';
export {
  blocksTextLength,
  checkMessage,
  checkView,
  MSG_BLOCKS_TOO_LONG,
  MSG_TOO_LONG,
  NO_TEXT,
  VIEW_TOO_LARGE,
} from './validate.js';
