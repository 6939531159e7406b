import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CHANNELS, PEOPLE, type Sandbox } from '../src/index.js';
import {
  type AppAnswer,
  slackError,
  startRecordingApp,
  startTestSandbox,
  webClient,
} from './sandbox-fixture.js';

const ops = CHANNELS.ops.id;
const payloadSchema = z.looseObject({
  container: z.looseObject({ is_ephemeral: z.boolean().optional() }),
  message: z.unknown().optional(),
  response_url: z.string().optional(),
});

const modal = (title: string) => ({
  type: 'modal' as const,
  callback_id: 'steps',
  title: { type: 'plain_text' as const, text: title },
  submit: { type: 'plain_text' as const, text: 'Next' },
  blocks: [
    {
      type: 'input',
      block_id: 'note_block',
      optional: true,
      label: { type: 'plain_text' as const, text: 'Note' },
      element: { type: 'plain_text_input', action_id: 'note' },
    },
  ],
});

const buttonBlocks = [
  {
    type: 'actions',
    block_id: 'b',
    elements: [{ type: 'button', action_id: 'go', text: { type: 'plain_text', text: 'Go' } }],
  },
];

describe('rules Slack enforces, which the sandbox enforces too', () => {
  let sandbox: Sandbox;
  let app: Awaited<ReturnType<typeof startRecordingApp>>;
  let nextAnswer: (request: URLSearchParams) => AppAnswer | Promise<AppAnswer>;

  beforeAll(async () => {
    app = await startRecordingApp((request) => nextAnswer(request));
    sandbox = await startTestSandbox({ appEventsUrl: app.url });
  });
  afterAll(async () => {
    await sandbox.stop();
    await app.stop();
  });
  beforeEach(() => {
    sandbox.reset();
    app.requests.length = 0;
    nextAnswer = () => ({});
  });

  const lastRequest = () => {
    const request = app.requests.at(-1);
    if (!request) throw new Error('the app received nothing');
    return request;
  };
  const lastPayload = () => payloadSchema.parse(JSON.parse(lastRequest().get('payload') ?? '{}'));
  const respond = (url: string, body: object) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('a response_url works five times, then answers 404 used_url', async () => {
    await sandbox.slashCommand({
      user: 'alice',
      channel: 'ops',
      command: '/agent',
      text: 'status',
    });
    const url = lastRequest().get('response_url') ?? '';
    for (let n = 1; n <= 5; n++)
      expect((await respond(url, { text: `update ${n}` })).status).toBe(200);
    const sixth = await respond(url, { text: 'one too many' });
    expect(sixth.status).toBe(404);
    expect(await sixth.text()).toBe('used_url');
    expect(sandbox.ephemerals('alice')).toHaveLength(5);
  });

  it('a response_url reply with in_channel is seen by everyone; invalid blocks are refused with 400', async () => {
    await sandbox.slashCommand({
      user: 'alice',
      channel: 'ops',
      command: '/agent',
      text: 'status',
    });
    const url = lastRequest().get('response_url') ?? '';
    expect((await respond(url, { response_type: 'in_channel', text: 'All good' })).status).toBe(
      200,
    );
    expect(sandbox.messages(ops).map((m) => m.text)).toEqual(['All good']);
    const refused = await respond(url, {
      text: 'x',
      blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })),
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toBe('invalid_blocks');
  });

  it('a click on an ephemeral message carries no message, and delete_original removes it', async () => {
    const posted = await webClient(sandbox).chat.postEphemeral({
      channel: ops,
      user: PEOPLE.bob.id,
      text: 'Only for Bob',
      blocks: buttonBlocks,
    });
    const ts = String(posted.message_ts);
    expect(
      await sandbox.clickButton({ user: 'bob', channel: 'ops', messageTs: ts, actionId: 'go' }),
    ).toMatchObject({
      answered: true,
      status: 200,
    });
    const payload = lastPayload();
    expect(payload.container.is_ephemeral).toBe(true);
    expect(payload.message).toBeUndefined();
    expect((await respond(payload.response_url ?? '', { delete_original: true })).status).toBe(200);
    expect(sandbox.ephemerals('bob')).toEqual([]);
  });

  it('nobody clicks an ephemeral meant for someone else, or types a command in a channel they are not in', async () => {
    const posted = await webClient(sandbox).chat.postEphemeral({
      channel: ops,
      user: PEOPLE.bob.id,
      text: 'Only for Bob',
      blocks: buttonBlocks,
    });
    const clicked = await sandbox.clickButton({
      user: 'carol',
      channel: 'ops',
      messageTs: String(posted.message_ts),
      actionId: 'go',
    });
    expect(clicked).toMatchObject({
      answered: false,
      reason: expect.stringContaining('no message'),
    });
    const typed = await sandbox.slashCommand({
      user: 'dave',
      channel: 'payments',
      command: '/agent',
    });
    expect(typed).toMatchObject({ answered: false, reason: 'dave is not in payments' });
    expect(app.requests).toEqual([]);
  });

  it('a click the app answers with HTTP 500 leaves a notice for the clicker', async () => {
    const posted = await webClient(sandbox).chat.postMessage({
      channel: ops,
      text: 'x',
      blocks: buttonBlocks,
    });
    nextAnswer = () => ({ status: 500 });
    const result = await sandbox.clickButton({
      user: 'bob',
      channel: 'ops',
      messageTs: String(posted.ts),
      actionId: 'go',
    });
    expect(result).toMatchObject({ answered: true, status: 500 });
    expect(sandbox.notices('bob')).toMatchObject([
      { messageTs: posted.ts, text: expect.stringContaining('HTTP 500') },
    ]);
  });

  it('a slash command not acknowledged within the deadline fails with Slackbot saying operation_timeout', async () => {
    const slow = await startRecordingApp(async () => {
      await sleep(500);
      return {};
    });
    const impatient = await startTestSandbox({ appEventsUrl: slow.url, ackTimeoutMs: 100 });
    try {
      const result = await impatient.slashCommand({
        user: 'alice',
        channel: 'ops',
        command: '/agent',
      });
      expect(result).toMatchObject({ answered: false, reason: expect.stringContaining('timeout') });
      expect(impatient.ephemerals('alice')).toMatchObject([
        { from: 'USLACKBOT', text: '/agent failed with the error "operation_timeout"' },
      ]);
    } finally {
      await impatient.stop();
      await slow.stop();
    }
  });

  it('deleting a thread parent leaves "This message was deleted." above its replies', async () => {
    const client = webClient(sandbox);
    const root = await client.chat.postMessage({ channel: ops, text: 'root' });
    await client.chat.postMessage({ channel: ops, text: 'reply', thread_ts: String(root.ts) });
    await client.chat.delete({ channel: ops, ts: String(root.ts) });
    expect(sandbox.messages(ops)).toMatchObject([
      { deleted: true, text: 'This message was deleted.', replyCount: 1 },
    ]);
    expect(
      (await slackError(client.chat.update({ channel: ops, ts: String(root.ts), text: 'x' })))
        .error,
    ).toBe('message_not_found');
  });

  describe('modals', () => {
    async function openModal(user: string): Promise<string> {
      await sandbox.slashCommand({ user, channel: 'ops', command: '/agent' });
      const opened = await webClient(sandbox).views.open({
        trigger_id: lastRequest().get('trigger_id') ?? '',
        view: modal('First'),
      });
      return String(opened.view?.id);
    }

    async function triggerFor(user: string): Promise<string> {
      await sandbox.slashCommand({ user, channel: 'ops', command: '/agent' });
      return lastRequest().get('trigger_id') ?? '';
    }

    it('views.push refuses a fourth view with push_limit_reached', async () => {
      await openModal('bob');
      const client = webClient(sandbox);
      await client.views.push({ trigger_id: await triggerFor('bob'), view: modal('Second') });
      await client.views.push({ trigger_id: await triggerFor('bob'), view: modal('Third') });
      const error = await slackError(
        client.views.push({ trigger_id: await triggerFor('bob'), view: modal('Fourth') }),
      );
      expect(error.error).toBe('push_limit_reached');
      expect(sandbox.views('bob')).toHaveLength(3);
    });

    it('response_action update replaces the submitted view, push stacks one, clear closes them all', async () => {
      const first = await openModal('carol');
      nextAnswer = () => ({
        body: JSON.stringify({ response_action: 'update', view: modal('Updated') }),
      });
      await sandbox.submitView({ user: 'carol', values: { note_block: 'kept' } });
      expect(sandbox.views('carol')).toMatchObject([
        { id: first, view: { title: { text: 'Updated' } } },
      ]);

      nextAnswer = () => ({
        body: JSON.stringify({ response_action: 'push', view: modal('Pushed') }),
      });
      await sandbox.submitView({ user: 'carol' });
      expect(sandbox.views('carol').map((v) => v.view.title)).toMatchObject([
        { text: 'Updated' },
        { text: 'Pushed' },
      ]);

      nextAnswer = () => ({});
      await sandbox.submitView({ user: 'carol' });
      expect(sandbox.views('carol').map((v) => v.id)).toEqual([first]);

      await sandbox.submitView({ user: 'carol' });
      expect(sandbox.views('carol')).toEqual([]);

      await openModal('carol');
      nextAnswer = () => ({
        body: JSON.stringify({ response_action: 'push', view: modal('Pushed') }),
      });
      await sandbox.submitView({ user: 'carol' });
      nextAnswer = () => ({ body: JSON.stringify({ response_action: 'clear' }) });
      await sandbox.submitView({ user: 'carol' });
      expect(sandbox.views('carol')).toEqual([]);
    });

    it('a button in a modal sends block_actions with the view as its container', async () => {
      await sandbox.slashCommand({ user: 'bob', channel: 'ops', command: '/agent' });
      const opened = await webClient(sandbox).views.open({
        trigger_id: lastRequest().get('trigger_id') ?? '',
        view: { ...modal('With a button'), blocks: [...modal('x').blocks, ...buttonBlocks] },
      });
      const viewId = String(opened.view?.id);
      const result = await sandbox.clickButton({ user: 'bob', viewId, actionId: 'go' });
      expect(result).toMatchObject({ answered: true, status: 200 });
      const payload = z
        .looseObject({
          container: z.unknown(),
          view: z.looseObject({ id: z.string() }),
          response_url: z.unknown().optional(),
        })
        .parse(JSON.parse(lastRequest().get('payload') ?? '{}'));
      expect(payload.container).toEqual({ type: 'view', view_id: viewId });
      expect(payload.view.id).toBe(viewId);
      expect(payload.response_url).toBeUndefined();
    });

    it('a view_submission carries the entered values in Slack state shape', async () => {
      await openModal('bob');
      await sandbox.submitView({ user: 'bob', values: { note_block: 'a & b' } });
      const payload = z
        .looseObject({
          type: z.literal('view_submission'),
          view: z.looseObject({ state: z.unknown() }),
        })
        .parse(JSON.parse(lastRequest().get('payload') ?? '{}'));
      expect(payload.view.state).toEqual({
        values: { note_block: { note: { type: 'plain_text_input', value: 'a & b' } } },
      });
    });
  });
});
