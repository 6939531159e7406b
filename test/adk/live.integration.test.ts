import { describe, expect, inject, it } from 'vitest';
import { AdkClient } from '../../src/adk/client.js';
import { AdkError } from '../../src/adk/errors.js';
import { answeredConfirmationIds, parseGates } from '../../src/adk/wire.js';
import {
  type Conversation,
  countToolRuns as countRuns,
  events,
  onlyGate,
  pauseOf,
  results,
  startConversation,
  texts,
} from '../support/adk-conversation.js';

/** Runs against the real `adk api_server` the global setup started, serving `test/agents/`. */

const client = new AdkClient({ baseUrl: inject('adkBaseUrl') });
const USER = 'u-live';

const conversation = (appName: string) => startConversation(client, appName, USER);
const countToolRuns = (chat: Conversation, toolName: string) => countRuns(client, chat, toolName);

describe('the ADK client against a real adk api_server', () => {
  it('lists the test apps', async () => {
    expect(await client.listApps()).toEqual(expect.arrayContaining(['payments', 'time_off']));
  });

  it('approving a gated transfer runs the tool once and the model answers with its result', async () => {
    const chat = await conversation('payments');
    const gate = onlyGate(await chat.send('Please transfer 250 to savings'));
    expect(gate.originalCall).toMatchObject({ name: 'transfer_money', args: { amount: 250 } });
    expect(gate.confirmationCallId).not.toBe(gate.originalCall.id);
    expect(gate.author).toBe('payments');
    expect(await countToolRuns(chat, 'transfer_money')).toBe(0);

    const answer = await chat.resume([gate], { [gate.confirmationCallId]: { confirmed: true } });

    expect(results(answer)).toEqual([
      { callId: gate.originalCall.id, name: 'transfer_money', status: 'ok' },
    ]);
    expect(texts(answer)).toEqual([
      'Tool transfer_money returned {"status":"transferred","amount":250}',
    ]);
    expect(await countToolRuns(chat, 'transfer_money')).toBe(1);
  });

  it('rejecting a gated transfer gives the model the rejection and runs nothing', async () => {
    const chat = await conversation('payments');
    const gate = onlyGate(await chat.send('transfer 75'));

    const answer = await chat.resume([gate], { [gate.confirmationCallId]: { confirmed: false } });

    expect(results(answer)).toEqual([
      { callId: gate.originalCall.id, name: 'transfer_money', status: 'rejected' },
    ]);
    expect(texts(answer)).toEqual([
      'Tool transfer_money returned {"error":"This tool call is rejected."}',
    ]);
    expect(await countToolRuns(chat, 'transfer_money')).toBe(0);
  });

  it('a payload edited by the approver reaches the tool that reads it', async () => {
    const chat = await conversation('time_off');
    const gate = onlyGate(await chat.send('I would like 4 days off'));
    expect(gate.originalCall).toMatchObject({ name: 'request_time_off', args: { days: 4 } });
    expect(gate.payloadTemplate).toEqual({ approved_days: 4 });
    expect(gate.hint).toBe(
      'Please approve or reject the request for 4 days off. Put the number of approved days in payload.approved_days.',
    );

    const answer = await chat.resume([gate], {
      [gate.confirmationCallId]: { confirmed: true, payload: { approved_days: 2 } },
    });

    expect(texts(answer)).toEqual([
      'Tool request_time_off returned {"status":"approved","requested_days":4,"approved_days":2}',
    ]);
  });

  it('a tool that asks for confirmation itself decides what a rejection means', async () => {
    const chat = await conversation('time_off');
    const gate = onlyGate(await chat.send('3 days off please'));

    const answer = await chat.resume([gate], { [gate.confirmationCallId]: { confirmed: false } });

    expect(results(answer)).toEqual([
      { callId: gate.originalCall.id, name: 'request_time_off', status: 'ok' },
    ]);
    expect(texts(answer)).toEqual([
      'Tool request_time_off returned {"status":"rejected","requested_days":3,"approved_days":0}',
    ]);
  });

  it('two gated calls of one turn are one pause, and one message answers both', async () => {
    const chat = await conversation('payments');
    const gates = pauseOf(await chat.send('transfer 100 and pay invoice 900'));
    expect(gates.map((gate) => gate.originalCall.name)).toEqual(['transfer_money', 'pay_invoice']);
    const [transfer, invoice] = gates;
    if (!transfer || !invoice) throw new Error('two gates expected');
    expect(transfer.invocationId).toBeDefined();
    expect(invoice.invocationId).toBe(transfer.invocationId);

    const answer = await chat.resume(gates, {
      [transfer.confirmationCallId]: { confirmed: true },
      [invoice.confirmationCallId]: { confirmed: false },
    });

    expect(results(answer)).toEqual([
      { callId: transfer.originalCall.id, name: 'transfer_money', status: 'ok' },
      { callId: invoice.originalCall.id, name: 'pay_invoice', status: 'rejected' },
    ]);
    expect(texts(answer)).toEqual([
      'Tool transfer_money returned {"status":"transferred","amount":100}\nTool pay_invoice returned {"error":"This tool call is rejected."}',
    ]);
  });

  it('resending a decided gate does not run the tool again', async () => {
    const chat = await conversation('payments');
    const gate = onlyGate(await chat.send('transfer 40'));
    const decision = { [gate.confirmationCallId]: { confirmed: true } };
    await chat.resume([gate], decision);
    const session = await client.getSession(chat.appName, USER, chat.sessionId);
    expect(answeredConfirmationIds(session.events)).toEqual(new Set([gate.confirmationCallId]));

    const again = await chat.resume([gate], decision);

    expect(results(again)).toEqual([]);
    expect(await countToolRuns(chat, 'transfer_money')).toBe(1);
  });

  it('ADK JS 2.0 raises no request for a second confirmation a resumed tool asks for, and no answer a client can send runs the tool', async () => {
    // Why the app can only report it (docs/agents.md, "Which ADK agents work"): in @google/adk 2.0.0 the
    // request-confirmation processor resumes the tool and yields its answer, with the second ask
    // in actions.requestedToolConfirmations, and no adk_request_confirmation call
    // (generateRequestConfirmationEvent is called only after a model's own function calls, in
    // LlmAgent.postprocess); and it honours a confirmation only when an agent-authored
    // adk_request_confirmation call has that id and its original call has no answer after it.
    const chat = await conversation('two_stage');
    const gate = onlyGate(await chat.send('deploy api'));
    const resumed = await chat.resume([gate], { [gate.confirmationCallId]: { confirmed: true } });
    expect(resumed.filter((event) => parseGates(event).kind !== 'none')).toEqual([]);
    const secondAsk = resumed.find(
      (event) => event.actions?.requestedToolConfirmations?.[gate.originalCall.id] !== undefined,
    );
    expect(secondAsk?.actions?.requestedToolConfirmations).toEqual({
      [gate.originalCall.id]: expect.objectContaining({
        hint: 'Change board: sign off the production deploy of api.',
      }),
    });

    const signOff = { confirmed: true, payload: { stage: 'change-board' } };
    const answer = (id: string) =>
      events(
        client.runSse({
          appName: chat.appName,
          userId: USER,
          sessionId: chat.sessionId,
          newMessage: {
            role: 'user',
            parts: [
              { functionResponse: { id, name: 'adk_request_confirmation', response: signOff } },
            ],
          },
        }),
      );
    // The first gate again: its original call already has an answer after it.
    expect(results(await answer(gate.confirmationCallId))).toEqual([]);
    // The original call id as a confirmation: no adk_request_confirmation call has that id.
    expect(results(await answer(gate.originalCall.id))).toEqual([]);
    // A plain "yes": read only with runConfig.plainTextToolConfirmation, which the server never sets.
    expect(results(await chat.send('yes'))).toEqual([]);

    const session = await client.getSession(chat.appName, USER, chat.sessionId);
    const deployed = session.events.filter((event) =>
      (event.content?.parts ?? []).some((part) =>
        JSON.stringify(part.functionResponse?.response ?? null).includes('"deployed"'),
      ),
    );
    expect(deployed).toEqual([]);

    // Control: the same check sees a deploy when the sign-off does reach the tool.
    const control = await conversation('two_stage');
    const first = onlyGate(await control.send('deploy api'));
    const ran = await control.resume([first], { [first.confirmationCallId]: signOff });
    expect(JSON.stringify(ran)).toContain('"deployed"');
  });

  it('a follow-up message after a resume reaches the model', async () => {
    const chat = await conversation('payments');
    const gate = onlyGate(await chat.send('transfer 5000'));
    await chat.resume([gate], { [gate.confirmationCallId]: { confirmed: false } });

    const answer = await chat.send('Rejected by Ana: over the daily limit');

    expect(texts(answer)).toEqual(['Noted: Rejected by Ana: over the daily limit']);
  });

  it('a tool without confirmation runs at once and reports success or failure', async () => {
    const chat = await conversation('payments');
    const found = await chat.send('balance savings');
    expect(found.flatMap((event) => (parseGates(event).kind === 'none' ? [] : [event]))).toEqual(
      [],
    );
    expect(results(found)).toEqual([
      { callId: expect.any(String), name: 'check_balance', status: 'ok' },
    ]);
    expect(texts(found)).toEqual([
      'Tool check_balance returned {"account":"savings","balance":5000}',
    ]);

    const missing = await chat.send('balance of mars');
    expect(results(missing)).toEqual([
      { callId: expect.any(String), name: 'check_balance', status: 'failed' },
    ]);
  });

  it('streaming delivers the answer as partial events, then once whole', async () => {
    const chat = await conversation('payments');
    const run = await chat.send('hello there', { streaming: true });
    expect(run.map((event) => event.partial ?? false)).toEqual([true, true, false]);
    expect(texts(run)).toEqual(['Noted: hello there']);
  });

  it('an unknown session is an HTTP 404 with the server message', async () => {
    const lookup = client.getSession('payments', USER, 'no-such-session');
    await expect(lookup).rejects.toBeInstanceOf(AdkError);
    await expect(lookup).rejects.toMatchObject({
      reason: 'http',
      status: 404,
      serverMessage: 'Session not found: no-such-session',
    });
    const run = events(
      client.runSse({
        appName: 'payments',
        userId: USER,
        sessionId: 'no-such-session',
        newMessage: { role: 'user', parts: [{ text: 'hi' }] },
      }),
    );
    await expect(run).rejects.toMatchObject({ reason: 'http', status: 404 });
  });

  it('an unknown app fails the stream with a stream_error after HTTP 200', async () => {
    // The server does not check the app name when creating a session, only when running.
    const session = await client.createSession('no_such_app', USER);
    const run = events(
      client.runSse({
        appName: 'no_such_app',
        userId: USER,
        sessionId: session.id,
        newMessage: { role: 'user', parts: [{ text: 'hi' }] },
      }),
    );
    await expect(run).rejects.toMatchObject({
      reason: 'stream_error',
      serverMessage: expect.stringMatching(/^Agent 'no_such_app' not found/),
    });
  });
});
