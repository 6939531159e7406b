/**
 * Slack's interaction payloads as the sandbox builds them, for tools that send them themselves
 * instead of through a running sandbox (the app's benchmarks fire hundreds of clicks at once).
 */
export { findElement } from './blocks.js';
export { toSlackMessage } from './conversations.js';
export { payloadForm } from './interactions/delivery.js';
export { actionJson, blockActionsPayload } from './interactions/payloads.js';
export { slackSignature } from './interactions/signing.js';
export { findConversation } from './workspace.js';
