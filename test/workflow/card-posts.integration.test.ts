import { randomBytes } from 'node:crypto';
import { CHANNELS, type Sandbox, startSandbox } from '@adk-slack-approvals/slack-sandbox';
import { findElement } from '@adk-slack-approvals/slack-sandbox/payloads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalPauseSignals } from '../../src/approvals/pause-signals.js';
import type { RedisClient } from '../../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../../src/approvals/store/redis-store.js';
import { type Sweeper, startSweeper } from '../../src/approvals/store/sweeper.js';
import type { ApprovalStore } from '../../src/approvals/store.js';
import { ACTION_IDS, parseButtonValue } from '../../src/slack/codecs/action-ids.js';
import { SlackHttpClient } from '../../src/slack/transport/slack-http-client.js';
import { WebApiSlackPort } from '../../src/slack/transport/web-api-port.js';
import { type ComposedWorkflow, composeWorkflow } from '../../src/workflow/compose.js';
import { CAPTURED_GATES } from '../approvals/store/fixtures.js';
import { connectTestRedis, deleteWithPrefix, randomPrefix } from '../support/redis.js';
import { policyOf, quietAdk, workflowTestDefaults } from '../support/workflow.js';

/**
 * A card is posted at most once, however long Slack's rate limit holds its post. The real store
 * (Redis), the real Slack port and HTTP client, the sandbox answering 429 with `Retry-After`, and
 * the real sweeper looking for pauses without a card, with a grace shorter than the rate limit
 * makes the post wait (in the app, 90 s against a channel's queue of cards at one a second).
 */
const OPS = CHANNELS.ops.id;
const GRACE_MS = 300;

let sandbox: Sandbox;
let redis: RedisClient;
let keyPrefix: string;
let store: ApprovalStore;
let client: SlackHttpClient;
let composed: ComposedWorkflow;
let sweeper: Sweeper | undefined;

beforeEach(async () => {
  const botToken = `xoxb-test-${randomBytes(4).toString('hex')}`;
  sandbox = await startSandbox({ botToken, signingSecret: 'secret' });
  redis = await connectTestRedis();
  keyPrefix = randomPrefix();
  store = openRedisStore({ redis, keyPrefix });
  client = new SlackHttpClient({
    token: botToken,
    apiUrl: sandbox.apiUrl,
    timeoutMs: 5_000,
    retries: 2,
    retryDelayMs: 10,
    maxRetryDelayMs: 20,
  });
  const policy = policyOf(`defaults:\n  approvers: [U0APPROVER]\n  channel: ${OPS}\n`);
  composed = composeWorkflow({
    ...workflowTestDefaults,
    store,
    adk: quietAdk().adk,
    slack: new WebApiSlackPort({ client }),
    directory: { usergroupMembers: async () => [], channelMembers: async () => [] },
    policy: () => policy,
    clock: Date.now,
    external: {
      signals: new LocalPauseSignals(),
      adkTargets: new Map(),
      signingSecretOf: () => 'secret',
      webhookKeyOf: () => undefined,
    },
  });
});

afterEach(async () => {
  await sweeper?.stop();
  await composed.workflow.drain(5_000);
  client.close();
  await deleteWithPrefix(redis, keyPrefix);
  await store.lifecycle.close();
  redis.disconnect();
  await sandbox.stop();
});

/** Starts the sweeper as the app does, with its grace for pauses without a card made short. */
function sweep(owner: string): Sweeper {
  return startSweeper({
    store,
    intervalMs: 50,
    now: Date.now,
    onExpired: async () => {},
    onResumeDue: async () => {},
    cardless: {
      owner,
      graceMs: GRACE_MS,
      leaseMs: GRACE_MS,
      onCardless: (pauseIds) => composed.sweeps.onCardless(pauseIds),
    },
    log: workflowTestDefaults.log,
  });
}

/** The cards in #ops that carry an Approve button for `callId`. */
function cardsOf(callId: string): number {
  return sandbox.messages(OPS).filter((message) => {
    const approve = findElement(message.blocks, { actionId: ACTION_IDS.approve });
    return parseButtonValue(approve?.element.value)?.callId === callId;
  }).length;
}

function pauseInput() {
  const [gate] = CAPTURED_GATES;
  if (gate === undefined) throw new Error('no captured gate');
  const suffix = randomBytes(4).toString('hex');
  return {
    keyName: 'agent',
    app: 'payments',
    userId: 'u1',
    sessionId: `s-${suffix}`,
    gates: [{ ...gate, confirmationCallId: `${gate.confirmationCallId}-${suffix}` }],
    external: { keyName: 'agent', resume: { mode: 'poll' as const } },
  };
}

describe('a card whose post waits out Slack’s rate limit', () => {
  it('is posted once: the sweeper does not post it again while it waits', {
    timeout: 20_000,
  }, async () => {
    // The first three posts are refused, each for a second: the card waits about 3 s.
    sandbox.rateLimit('chat.postMessage', 3, 1);
    sweeper = sweep('another replica');
    const input = pauseInput();
    const created = await composed.external?.create(input);
    expect(created).toMatchObject({ kind: 'created' });
    // Longer than the grace and a sweep after the card was posted.
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS * 3));
    await composed.workflow.drain(5_000);
    const callId = input.gates[0]?.confirmationCallId ?? '';
    expect(cardsOf(callId)).toBe(1);
    const posts = sandbox.calls('chat.postMessage');
    expect(posts.filter((call) => call.status === 429)).toHaveLength(3);
    expect(posts.filter((call) => call.ok)).toHaveLength(1);
  });
});
