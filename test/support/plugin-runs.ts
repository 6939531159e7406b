import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ApprovalsPlugin,
  type CreatedPause,
  decisionSchema,
  type ResumeWithDecisionResult,
  resumeWithDecision,
} from '@adk-slack-approvals/adk-approvals';
import { InMemoryRunner } from '@google/adk';

/**
 * An agent that runs its own Runner with the ApprovalsPlugin (the real ADK JS InMemoryRunner),
 * as the end-to-end tests of the plugin's resume paths drive it.
 */

type Agent = ConstructorParameters<typeof InMemoryRunner>[0]['agent'];

export interface PluginRunner {
  runner: InMemoryRunner;
  plugin: ApprovalsPlugin;
  userId: string;
  sessionId: string;
}

/** A runner with `plugin` and a session of its own. */
export async function pluginRunner(
  agent: Agent,
  appName: string,
  plugin: ApprovalsPlugin,
  userId: string,
): Promise<PluginRunner> {
  const runner = new InMemoryRunner({ agent, appName, plugins: [plugin] });
  const session = await runner.sessionService.createSession({ appName, userId });
  return { runner, plugin, userId: session.userId, sessionId: session.id };
}

/** Runs `text` to the end; the pause the plugin posted for it (fails the test when none). */
export async function pausedOn(run: PluginRunner, text: string): Promise<CreatedPause> {
  let last: string | undefined;
  for await (const event of run.runner.runAsync({
    userId: run.userId,
    sessionId: run.sessionId,
    newMessage: { role: 'user', parts: [{ text }] },
  })) {
    last = event.invocationId;
  }
  const posted = last === undefined ? undefined : run.plugin.postedPause(last);
  if (posted === undefined) throw new Error('the run did not pause');
  return posted.pause;
}

/**
 * A webhook receiver on 127.0.0.1 that resumes a runner with each decision delivered to it
 * (`resumeWithDecision`), then answers: 204, or 500 when that threw. It resumes before it
 * answers, as a simple receiver would.
 */
export interface DecisionReceiver {
  /** A URL prefix the receiver answers under. */
  url: string;
  /** The outcome of resuming `run` once the decision of `pauseId` is delivered. */
  resumes(pauseId: string, run: PluginRunner): Promise<ResumeWithDecisionResult>;
  close(): Promise<void>;
}

export async function startDecisionReceiver(): Promise<DecisionReceiver> {
  const handlers = new Map<string, (body: unknown) => Promise<void>>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const handle = handlers.get(String(req.headers['x-approvals-delivery']));
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      (handle ?? (async () => {}))(body).then(
        () => res.writeHead(204).end(),
        () => res.writeHead(500).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/`,
    resumes: (pauseId, run) =>
      new Promise((resolve, reject) => {
        handlers.set(pauseId, async (body) => {
          const decision = decisionSchema.parse(body);
          await resumeWithDecision({ ...run, decision }).then(resolve, reject);
        });
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
