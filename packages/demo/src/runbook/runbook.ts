import { ApprovalsPlugin, runWithApprovals } from '@adk-slack-approvals/adk-approvals';
import { getFunctionResponses, InMemoryRunner } from '@google/adk';
import { z } from 'zod';
import { rootAgent } from '../agents/ops/agent.js';

/**
 * `npm run demo:runbook [request]`: the ops agent run by its own ADK Runner, outside Slack, as an
 * alert or a schedule would start it. Its pause is posted to the approvals app (a card in the
 * sandbox with `npm start`), and it resumes itself once the card is decided (poll mode).
 *
 * Prints one JSON line per step on stdout, so that a test can follow it: `paused`, `tool`
 * (a tool's result status), `done` or `cancelled`. Configuration from the environment:
 * APPROVALS_URL (default http://127.0.0.1:3000), APPROVALS_API_KEY, APPROVALS_SIGNING_SECRET,
 * APPROVALS_CHANNEL (default C0OPS000001, the sandbox's #ops: the demo policy names no channel for
 * pauses posted through the API).
 */

/** The sandbox's #ops channel (packages/slack-sandbox's seeded workspace). */
const SANDBOX_OPS_CHANNEL = 'C0OPS000001';

const environment = z.object({
  APPROVALS_URL: z.string().url().default('http://127.0.0.1:3000'),
  APPROVALS_API_KEY: z.string().min(1, 'set the API key the app knows from API_KEYS_FILE'),
  APPROVALS_SIGNING_SECRET: z.string().min(32, 'set the signingSecret of that key'),
  APPROVALS_CHANNEL: z.string().default(SANDBOX_OPS_CHANNEL),
});

const toolResult = z.object({ status: z.string().optional(), error: z.string().optional() });

function say(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function main(): Promise<number> {
  const env = environment.safeParse(process.env);
  if (!env.success) {
    for (const issue of env.error.issues)
      console.error(`${issue.path.join('.')}: ${issue.message}`);
    return 2;
  }
  const request = process.argv.slice(2).join(' ') || 'restart payments-api';
  const plugin = new ApprovalsPlugin({
    baseUrl: env.data.APPROVALS_URL,
    apiKey: env.data.APPROVALS_API_KEY,
    signingSecret: env.data.APPROVALS_SIGNING_SECRET,
    title: 'Runbook started from the command line',
    channel: env.data.APPROVALS_CHANNEL,
  });
  const runner = new InMemoryRunner({ agent: rootAgent, appName: 'ops', plugins: [plugin] });
  const session = await runner.sessionService.createSession({ appName: 'ops', userId: 'runbook' });
  const result = await runWithApprovals({
    runner,
    plugin,
    userId: session.userId,
    sessionId: session.id,
    newMessage: { role: 'user', parts: [{ text: request }] },
    onPause: (pause) => say({ runbook: 'paused', pauseId: pause.id, tools: pause.tools }),
    onEvent: (event) => {
      for (const response of getFunctionResponses(event)) {
        if (response.name === 'adk_request_confirmation') continue;
        const parsed = toolResult.safeParse(response.response);
        say({
          runbook: 'tool',
          tool: response.name,
          status: parsed.success ? (parsed.data.status ?? 'error') : 'unknown',
          ...(parsed.success && parsed.data.error !== undefined
            ? { error: parsed.data.error }
            : {}),
        });
      }
    },
  });
  if (result.kind === 'cancelled') {
    say({ runbook: 'cancelled', pauseId: result.pauseId });
    return 1;
  }
  if (result.kind === 'unsupported_pause') {
    say({ runbook: 'unsupported', requests: result.requests });
    return 1;
  }
  if (result.kind === 'refused') {
    say({ runbook: 'refused', pauseId: result.pauseId, reason: result.reason });
    return 1;
  }
  const last = result.events.findLast((event) => event.content?.parts?.some((p) => p.text));
  say({
    runbook: 'done',
    pauses: result.pauses,
    text: last?.content?.parts?.map((p) => p.text ?? '').join('') ?? '',
  });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
