import {
  type Event,
  FunctionTool,
  getFunctionCalls,
  InMemoryRunner,
  isIntentMismatchError,
  LlmAgent,
  PolicyOutcome,
  SecurityPlugin,
} from '@google/adk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedLlm } from '../agents/scripted-model/scripted-llm.js';

/**
 * What ADK JS 2.0 itself does with an answer to a confirmation that ADK's own `SecurityPlugin`
 * asked for (its policy engine said CONFIRM): it stores the answer in the session, then refuses
 * it with `confirmation_not_required`, and the tool never runs. The app's resumer shows this as
 * "the agent refused the decision" (test/e2e/failures.test.ts), never as "resumed".
 */
describe("ADK JS 2.0's SecurityPlugin confirmation flow", () => {
  it('stores the approval, then refuses it (confirmation_not_required): the tool never runs', async () => {
    let runs = 0;
    const tool = new FunctionTool({
      name: 'rotate_keys',
      description: 'Rotates the service keys.',
      parameters: z.object({ service: z.string() }),
      execute: async () => {
        runs += 1;
        return { status: 'rotated' };
      },
    });
    const agent = new LlmAgent({
      name: 'keys',
      model: new ScriptedLlm([
        {
          pattern: /\brotate (\w+)/g,
          toCall: (m) => ({ name: 'rotate_keys', args: { service: m[1] } }),
        },
      ]),
      tools: [tool],
    });
    const plugin = new SecurityPlugin({
      policyEngine: {
        evaluate: async () => ({ outcome: PolicyOutcome.CONFIRM, reason: 'keys are sensitive' }),
      },
    });
    const runner = new InMemoryRunner({ agent, appName: 'keys', plugins: [plugin] });
    const session = await runner.sessionService.createSession({ appName: 'keys', userId: 'u' });
    const run = async (parts: NonNullable<Event['content']>['parts']) => {
      const events: Event[] = [];
      for await (const event of runner.runAsync({
        userId: 'u',
        sessionId: session.id,
        newMessage: { role: 'user', parts: parts ?? [] },
      })) {
        events.push(event);
      }
      return events;
    };

    const first = await run([{ text: 'rotate billing' }]);
    const ask = first
      .flatMap((event) => getFunctionCalls(event))
      .find((call) => call.name === 'adk_request_confirmation');
    if (ask?.id === undefined) throw new Error('the SecurityPlugin raised no confirmation');

    const refusal = await run([
      {
        functionResponse: {
          id: ask.id,
          name: 'adk_request_confirmation',
          response: { confirmed: true },
        },
      },
    ]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isIntentMismatchError(refusal)).toBe(true);
    expect(String(refusal)).toContain('confirmation_not_required');
    expect(runs).toBe(0);
    // The answer is in the session all the same: sending it again cannot help.
    const stored = await runner.sessionService.getSession({
      appName: 'keys',
      userId: 'u',
      sessionId: session.id,
    });
    const answered = (stored?.events ?? []).some((event) =>
      (event.content?.parts ?? []).some((part) => part.functionResponse?.id === ask.id),
    );
    expect(answered).toBe(true);
  });
});
