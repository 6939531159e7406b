/**
 * The demo for `npm start` and the tests: demo agents with an offline scripted model, their
 * approver policy, and a launcher for a local `adk api_server`. Development only: the app's
 * production code never imports it.
 */
export {
  type LocalAdkServer,
  LocalAdkServerError,
  type LocalAdkServerOptions,
  startLocalAdkServer,
} from './local-server.js';
export type { Log, LogFields } from './log.js';
export {
  DEMO_APPS,
  DEMO_DEFAULT_APP,
  type DemoAgents,
  demoAgents,
  demoAgentsDir,
  demoPolicyFile,
} from './paths.js';
export { DEMO_PROMPTS, type DemoPrompt } from './prompts.js';
