/**
 * The local Slack sandbox: Slack's Web API, interactivity and a Slack-like page, on loopback.
 * An app talks to it exactly as to Slack (`SLACK_API_URL=<sandbox>/api/`).
 */
export type { ApiCall } from './api-calls.js';
export { type ChannelRate, SLACK_CHANNEL_RATES } from './channel-rates.js';
export type { SandboxEphemeral, SandboxMessage } from './conversations.js';
export type { EventAttempt, EventDelivery } from './events/event-delivery.js';
export type {
  ClickInput,
  CloseViewInput,
  InteractionResult,
  PostAsPersonInput,
  SlashCommandInput,
  SubmitViewInput,
} from './interactions/inputs.js';
export { slackSignature } from './interactions/signing.js';
export type { InputValue, InputValues } from './interactions/view-input.js';
export type { SandboxView } from './modals.js';
export {
  type Sandbox,
  type SandboxEnvironment,
  type SandboxOptions,
  startSandbox,
  type WaitForOptions,
} from './server.js';
export type { Notice } from './state.js';
export type { SuggestedPrompt } from './suggestions.js';
export {
  BOT,
  CHANNELS,
  type Channel,
  PEOPLE,
  type Person,
  SLACKBOT,
  TEAM,
  USERGROUPS,
  type UserGroup,
} from './workspace.js';
