import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BOT, CHANNELS, PEOPLE, type Sandbox, TEAM, USERGROUPS } from '../src/index.js';
import { slackError, startRecordingApp, startTestSandbox, webClient } from './sandbox-fixture.js';

const ops = CHANNELS.ops.id;
const membersPage = z.object({ members: z.array(z.string()) });
const approveButton = (text: string) => ({
  type: 'actions',
  block_id: 'decide',
  elements: [
    { type: 'button', action_id: 'approve', text: { type: 'plain_text', text }, value: 'v1' },
  ],
});

describe('the sandbox Web API, through the real @slack/web-api client', () => {
  let sandbox: Sandbox;
  let app: Awaited<ReturnType<typeof startRecordingApp>>;

  beforeAll(async () => {
    app = await startRecordingApp();
    sandbox = await startTestSandbox({ appEventsUrl: app.url });
  });
  afterAll(async () => {
    await sandbox.stop();
    await app.stop();
  });
  beforeEach(() => sandbox.reset());

  it('auth.test names the sandbox bot and team', async () => {
    const result = await webClient(sandbox).auth.test();
    expect(result).toMatchObject({
      ok: true,
      user_id: BOT.userId,
      bot_id: BOT.botId,
      team_id: TEAM.id,
    });
  });

  it("auth.test's url is the sandbox, and its message links have Slack's form: a reply's names its thread, and opens it", async () => {
    const client = webClient(sandbox);
    expect((await client.auth.test()).url).toBe(`${sandbox.url}/`);
    const root = await client.chat.postMessage({ channel: ops, text: 'root' });
    const reply = await client.chat.postMessage({
      channel: ops,
      text: 'reply',
      thread_ts: root.ts ?? '',
    });
    const digits = (ts: string | undefined) => (ts ?? '').replace('.', '');
    const rootLink = await client.chat.getPermalink({ channel: ops, message_ts: root.ts ?? '' });
    expect(rootLink.permalink).toBe(`${sandbox.url}/archives/${ops}/p${digits(root.ts)}`);
    const replyLink = await client.chat.getPermalink({ channel: ops, message_ts: reply.ts ?? '' });
    expect(replyLink.permalink).toBe(
      `${sandbox.url}/archives/${ops}/p${digits(reply.ts)}?thread_ts=${root.ts}&cid=${ops}`,
    );
    const opened = await fetch(replyLink.permalink ?? '', { redirect: 'manual' });
    expect(opened.headers.get('location')).toBe(`/#${ops}/${root.ts}`);
  });

  it('a posted message with blocks appears in the channel, with Slack-assigned ids', async () => {
    const client = webClient(sandbox);
    const posted = await client.chat.postMessage({
      channel: ops,
      text: 'Approve the restart?',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: '*restart* payments-api' } },
        approveButton('Approve'),
      ],
    });
    expect(posted).toMatchObject({
      ok: true,
      channel: ops,
      message: { bot_id: BOT.botId, user: BOT.userId },
    });
    const [message] = sandbox.messages('ops');
    expect(message?.ts).toBe(posted.ts);
    expect(message?.text).toBe('Approve the restart?');
    expect(message?.blocks).toHaveLength(2);
    expect(message?.blocks[0]).toMatchObject({ type: 'section', block_id: expect.any(String) });
    expect(sandbox.calls('chat.postMessage')[0]?.args).toMatchObject({
      channel: ops,
      blocks: [{ type: 'section' }, { type: 'actions' }],
    });
  });

  it('a channel can be named instead of given by id, and replies form a thread with a count', async () => {
    const client = webClient(sandbox);
    const root = await client.chat.postMessage({ channel: '#ops', text: 'root' });
    await client.chat.postMessage({ channel: ops, text: 'first reply', thread_ts: root.ts });
    await client.chat.postMessage({ channel: ops, text: 'second reply', thread_ts: root.ts });
    expect(sandbox.messages(ops).map((m) => m.text)).toEqual(['root']);
    expect(sandbox.messages(ops)[0]?.replyCount).toBe(2);
    expect(sandbox.replies(ops, String(root.ts)).map((m) => m.text)).toEqual([
      'first reply',
      'second reply',
    ]);
    const thread = await client.conversations.replies({ channel: ops, ts: String(root.ts) });
    expect(thread.messages?.map((m) => m.text)).toEqual(['root', 'first reply', 'second reply']);
  });

  it('history and replies show message metadata only with include_all_metadata, and only messages after oldest', async () => {
    const client = webClient(sandbox);
    const metadata = { event_type: 'task_created', event_payload: { id: 'TK-1' } };
    const before = await client.chat.postMessage({ channel: ops, text: 'before' });
    const tagged = await client.chat.postMessage({ channel: ops, text: 'tagged', metadata });
    await client.chat.postMessage({ channel: ops, text: 'reply', thread_ts: before.ts, metadata });

    const plain = await client.conversations.history({ channel: ops });
    expect(plain.messages?.map((m) => m.text)).toEqual(['tagged', 'before']);
    expect(plain.messages?.some((m) => m.metadata !== undefined)).toBe(false);
    const full = await client.conversations.history({
      channel: ops,
      oldest: String(before.ts),
      include_all_metadata: true,
    });
    expect(full.messages).toEqual([
      expect.objectContaining({ ts: tagged.ts, text: 'tagged', metadata }),
    ]);
    const inclusive = await client.conversations.history({
      channel: ops,
      oldest: String(before.ts),
      inclusive: true,
    });
    expect(inclusive.messages?.map((m) => m.text)).toEqual(['tagged', 'before']);

    const thread = await client.conversations.replies({
      channel: ops,
      ts: String(before.ts),
      oldest: String(tagged.ts),
      include_all_metadata: true,
    });
    expect(thread.messages?.map((m) => [m.text, m.metadata?.event_type])).toEqual([
      ['before', undefined],
      ['reply', 'task_created'],
    ]);
    expect(
      (await slackError(client.conversations.history({ channel: ops, oldest: 'yesterday' }))).error,
    ).toBe('invalid_ts_oldest');
  });

  it('chat.update replaces text and blocks, keeps blocks when none are sent, and refuses what it cannot edit', async () => {
    const client = webClient(sandbox);
    const posted = await client.chat.postMessage({
      channel: ops,
      text: 'pending',
      blocks: [approveButton('Approve')],
    });
    const ts = String(posted.ts);
    await client.chat.update({ channel: ops, ts, text: 'still pending' });
    expect(sandbox.message(ops, ts)).toMatchObject({
      text: 'still pending',
      blocks: [{ type: 'actions' }],
    });
    const updated = await client.chat.update({ channel: ops, ts, text: 'approved', blocks: [] });
    expect(updated).toMatchObject({ ok: true, ts, text: 'approved' });
    expect(sandbox.message(ops, ts)).toMatchObject({ text: 'approved', blocks: [] });

    expect(
      (await slackError(client.chat.update({ channel: ops, ts: '1.000001', text: 'x' }))).error,
    ).toBe('message_not_found');
    const personal = sandbox.postAsPerson({ user: 'alice', channel: 'ops', text: 'hello' });
    expect(
      (await slackError(client.chat.update({ channel: ops, ts: personal.ts, text: 'x' }))).error,
    ).toBe('cant_update_message');
  });

  it('an ephemeral message is seen only by its person, and only if they are in the channel', async () => {
    const client = webClient(sandbox);
    const result = await client.chat.postEphemeral({
      channel: ops,
      user: PEOPLE.bob.id,
      text: 'only you',
    });
    expect(result.message_ts).toMatch(/^\d+\.\d{6}$/);
    expect(sandbox.ephemerals('bob')).toMatchObject([
      { ts: result.message_ts, text: 'only you', channel: ops },
    ]);
    expect(sandbox.ephemerals('carol')).toEqual([]);
    expect(sandbox.messages(ops)).toEqual([]);
    const outsider = client.chat.postEphemeral({
      channel: CHANNELS.payments.id,
      user: PEOPLE.dave.id,
      text: 'x',
    });
    expect((await slackError(outsider)).error).toBe('user_not_in_channel');
  });

  it('a message posted to a person lands in their DM with the bot', async () => {
    const posted = await webClient(sandbox).chat.postMessage({
      channel: PEOPLE.carol.id,
      text: 'Your approval is needed',
    });
    expect(posted.channel).toBe(PEOPLE.carol.dmId);
    expect(sandbox.messages(PEOPLE.carol.dmId).map((m) => m.text)).toEqual([
      'Your approval is needed',
    ]);
    const opened = await webClient(sandbox).conversations.open({ users: PEOPLE.carol.id });
    expect(opened.channel?.id).toBe(PEOPLE.carol.dmId);
  });

  it('chat.delete removes the bot message', async () => {
    const client = webClient(sandbox);
    const posted = await client.chat.postMessage({ channel: ops, text: 'to delete' });
    await client.chat.delete({ channel: ops, ts: String(posted.ts) });
    expect(sandbox.messages(ops)).toEqual([]);
  });

  it('refuses an unknown channel, a message with no text and a wrong or missing token, like Slack', async () => {
    const client = webClient(sandbox);
    expect(
      (await slackError(client.chat.postMessage({ channel: 'C0NOSUCH000', text: 'x' }))).error,
    ).toBe('channel_not_found');
    expect((await slackError(client.chat.postMessage({ channel: ops, text: '' }))).error).toBe(
      'no_text',
    );
    expect((await slackError(webClient(sandbox, {}, 'xoxb-wrong').auth.test())).error).toBe(
      'invalid_auth',
    );
    const anonymous = await fetch(`${sandbox.apiUrl}auth.test`, { method: 'POST' });
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ ok: false, error: 'not_authed' });
  });

  it('answers unknown_method for methods it does not implement', async () => {
    const error = await slackError(webClient(sandbox).apiCall('files.upload', { channels: ops }));
    expect(error).toMatchObject({ error: 'unknown_method', req_method: 'files.upload' });
  });

  it('takes JSON bodies as well as forms', async () => {
    const response = await fetch(`${sandbox.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer xoxb-test-sandbox-token',
        'content-type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify({ channel: ops, text: 'json', blocks: [{ type: 'divider' }] }),
    });
    expect(await response.json()).toMatchObject({ ok: true, message: { text: 'json' } });
    expect(sandbox.messages(ops)[0]?.blocks).toMatchObject([{ type: 'divider' }]);
  });

  it('refuses a message of 51 blocks with invalid_blocks and the failing rule', async () => {
    const blocks = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    const error = await slackError(
      webClient(sandbox).chat.postMessage({ channel: ops, text: 'many', blocks }),
    );
    expect(error).toMatchObject({
      error: 'invalid_blocks',
      errors: [expect.stringContaining('[json-pointer:/blocks]')],
    });
    expect(error.response_metadata?.messages?.[0]).toMatch(
      /^\[ERROR\] .*\[json-pointer:\/blocks\]/,
    );
    expect(sandbox.messages(ops)).toEqual([]);
  });

  it('refuses a button label of 76 characters with invalid_blocks pointing at the label', async () => {
    const blocks = [approveButton('x'.repeat(76))];
    const error = await slackError(
      webClient(sandbox).chat.postMessage({ channel: ops, text: 'long', blocks }),
    );
    expect(error).toMatchObject({
      error: 'invalid_blocks',
      errors: [expect.stringContaining('[json-pointer:/blocks/0/elements/0/text')],
    });
  });

  it('refuses blocks that are not a JSON array with invalid_blocks_format', async () => {
    const response = await fetch(`${sandbox.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer xoxb-test-sandbox-token',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ channel: ops, text: 'x', blocks: '{"type":' }).toString(),
    });
    expect(await response.json()).toEqual({ ok: false, error: 'invalid_blocks_format' });
  });

  it('answers 429 with Retry-After when told to, and the client waits and retries', async () => {
    sandbox.rateLimit('chat.postMessage', 1, 1);
    const client = webClient(sandbox, {
      retryConfig: { retries: 1, minTimeout: 0, maxTimeout: 1 },
    });
    const waits: number[] = [];
    client.on(webApi.WebClientEvent.RATE_LIMITED, (retryAfterSec: number) =>
      waits.push(retryAfterSec),
    );
    const posted = await client.chat.postMessage({ channel: ops, text: 'eventually' });
    expect(posted.ok).toBe(true);
    expect(waits).toEqual([1]);
    expect(sandbox.calls('chat.postMessage').map((c) => [c.status, c.error])).toEqual([
      [429, 'ratelimited'],
      [200, undefined],
    ]);
    expect(sandbox.messages(ops).map((m) => m.text)).toEqual(['eventually']);
  });

  it('a client that rejects rate-limited calls gets the Retry-After', async () => {
    sandbox.rateLimit('usergroups.users.list', 1, 30);
    const client = webClient(sandbox, { rejectRateLimitedCalls: true });
    await expect(
      client.usergroups.users.list({ usergroup: USERGROUPS.oncall.id }),
    ).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 30,
    });
  });

  it('answers who is who: users.info, usergroups.users.list, conversations.info', async () => {
    const client = webClient(sandbox);
    const bob = await client.users.info({ user: PEOPLE.bob.id });
    expect(bob.user).toMatchObject({
      id: PEOPLE.bob.id,
      name: 'bob',
      real_name: 'Bob Brennan',
      is_bot: false,
    });
    expect((await slackError(client.users.info({ user: 'U0NOBODY000' }))).error).toBe(
      'user_not_found',
    );
    const oncall = await client.usergroups.users.list({ usergroup: USERGROUPS.oncall.id });
    expect(oncall.users).toEqual([PEOPLE.bob.id, PEOPLE.carol.id]);
    expect(
      (await slackError(client.usergroups.users.list({ usergroup: 'S0NONE00000' }))).error,
    ).toBe('no_such_subteam');
    const info = await client.conversations.info({ channel: ops });
    expect(info.channel).toMatchObject({ id: ops, name: 'ops', is_channel: true, is_member: true });
  });

  it('a user group changed by setGroupMembers is answered as changed, until reset', async () => {
    const client = webClient(sandbox);
    sandbox.setGroupMembers('@oncall', ['carol']);
    const changed = await client.usergroups.users.list({ usergroup: USERGROUPS.oncall.id });
    expect(changed.users).toEqual([PEOPLE.carol.id]);
    const listed = await client.usergroups.list({ include_users: true });
    expect(listed.usergroups?.[0]).toMatchObject({ user_count: 1, users: [PEOPLE.carol.id] });
    expect(() => sandbox.setGroupMembers('@oncall', ['nobody'])).toThrow('no person nobody');
    sandbox.reset();
    const restored = await client.usergroups.users.list({ usergroup: USERGROUPS.oncall.id });
    expect(restored.users).toEqual([PEOPLE.bob.id, PEOPLE.carol.id]);
  });

  it('conversations.members pages with cursors until next_cursor is empty', async () => {
    const client = webClient(sandbox);
    const pages: unknown[] = [];
    for await (const page of client.paginate('conversations.members', { channel: ops, limit: 2 })) {
      pages.push(membersPage.parse(page).members);
    }
    expect(pages).toEqual([
      [PEOPLE.alice.id, PEOPLE.bob.id],
      [PEOPLE.carol.id, PEOPLE.dave.id],
      [BOT.userId],
    ]);
    expect(
      (await slackError(client.conversations.members({ channel: ops, cursor: 'bm9wZQ==' }))).error,
    ).toBe('invalid_cursor');
  });

  describe('views', () => {
    const modal = (title = 'Reason') => ({
      type: 'modal' as const,
      callback_id: 'reason',
      title: { type: 'plain_text' as const, text: title },
      submit: { type: 'plain_text' as const, text: 'Send' },
      blocks: [
        {
          type: 'input',
          block_id: 'reason_block',
          label: { type: 'plain_text' as const, text: 'Why?' },
          element: { type: 'plain_text_input', action_id: 'reason' },
        },
      ],
    });

    async function triggerFor(user: string): Promise<string> {
      const before = app.requests.length;
      await sandbox.slashCommand({ user, channel: 'ops', command: '/agent', text: 'hi' });
      const triggerId = app.requests[before]?.get('trigger_id');
      if (!triggerId) throw new Error('no trigger id reached the app');
      return triggerId;
    }

    it('views.open opens a modal for the person whose interaction issued the trigger, once', async () => {
      const client = webClient(sandbox);
      const triggerId = await triggerFor('bob');
      const opened = await client.views.open({ trigger_id: triggerId, view: modal() });
      expect(opened.view).toMatchObject({
        id: expect.stringMatching(/^V/),
        callback_id: 'reason',
        hash: expect.any(String),
      });
      expect(sandbox.views('bob').map((v) => v.id)).toEqual([opened.view?.id]);
      expect(
        (await slackError(client.views.open({ trigger_id: triggerId, view: modal() }))).error,
      ).toBe('exchanged_trigger_id');
      expect(
        (await slackError(client.views.open({ trigger_id: '1.2.nope', view: modal() }))).error,
      ).toBe('invalid_trigger_id');
    });

    it('a trigger id older than its lifetime is refused with expired_trigger_id', async () => {
      const recorder = await startRecordingApp();
      const impatient = await startTestSandbox({ appEventsUrl: recorder.url, triggerTtlMs: 0 });
      try {
        await impatient.slashCommand({ user: 'bob', channel: 'ops', command: '/agent' });
        const triggerId = recorder.requests[0]?.get('trigger_id') ?? '';
        const error = await slackError(
          webClient(impatient).views.open({ trigger_id: triggerId, view: modal() }),
        );
        expect(error.error).toBe('expired_trigger_id');
      } finally {
        await impatient.stop();
        await recorder.stop();
      }
    });

    it('views.update replaces the view by id or external id and refuses a stale hash', async () => {
      const client = webClient(sandbox);
      const opened = await client.views.open({
        trigger_id: await triggerFor('carol'),
        view: { ...modal(), external_id: 'ext-1' },
      });
      const viewId = String(opened.view?.id);
      const staleHash = String(opened.view?.hash);
      const updated = await client.views.update({
        view_id: viewId,
        hash: staleHash,
        view: modal('Second'),
      });
      expect(updated.view).toMatchObject({ id: viewId, title: { text: 'Second' } });
      expect(updated.view?.hash).not.toBe(staleHash);
      expect(
        (await slackError(client.views.update({ view_id: viewId, hash: staleHash, view: modal() })))
          .error,
      ).toBe('hash_conflict');
      await client.views.update({ external_id: 'ext-1', view: modal('Third') });
      expect(sandbox.views('carol')[0]?.view).toMatchObject({ title: { text: 'Third' } });
      expect(
        (await slackError(client.views.update({ view_id: 'V0NOPE', view: modal() }))).error,
      ).toBe('not_found');
    });

    it('views.publish keeps one Home per person: same id on republish, new hash, stale hash and bad views refused', async () => {
      const client = webClient(sandbox);
      const home = (text: string) => ({
        type: 'home' as const,
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
      });
      const bob = PEOPLE.bob.id;
      const first = await client.views.publish({ user_id: bob, view: home('First') });
      const second = await client.views.publish({ user_id: bob, view: home('Second') });
      expect(second.view).toMatchObject({ id: first.view?.id, type: 'home' });
      expect(second.view?.hash).not.toBe(first.view?.hash);
      expect(JSON.stringify(sandbox.home('bob')?.view)).toContain('Second');
      expect(sandbox.home('carol')).toBeUndefined();
      expect(
        (
          await slackError(
            client.views.publish({ user_id: bob, hash: String(first.view?.hash), view: home('x') }),
          )
        ).error,
      ).toBe('hash_conflict');
      expect((await slackError(client.views.publish({ user_id: bob, view: modal() }))).error).toBe(
        'invalid_arguments',
      );
      expect(
        (await slackError(client.views.publish({ user_id: 'U0NOBODY01', view: home('x') }))).error,
      ).toBe('user_not_found');
    });

    it('views.push stacks a view on the open one', async () => {
      const client = webClient(sandbox);
      await client.views.open({ trigger_id: await triggerFor('bob'), view: modal() });
      await client.views.push({ trigger_id: await triggerFor('bob'), view: modal('Pushed') });
      expect(sandbox.views('bob').map((v) => v.view.title)).toMatchObject([
        { text: 'Reason' },
        { text: 'Pushed' },
      ]);
    });

    it('an invalid view is refused with invalid_arguments and a json-pointer under /view', async () => {
      const error = await slackError(
        webClient(sandbox).views.open({
          trigger_id: await triggerFor('bob'),
          view: modal('A title far longer than 24 chars'),
        }),
      );
      expect(error.error).toBe('invalid_arguments');
      expect(error.response_metadata?.messages).toEqual([
        expect.stringMatching(/^\[ERROR\] .*\[json-pointer:\/view\/title\/text\]$/),
      ]);
      expect(sandbox.views('bob')).toEqual([]);
    });
  });

  it('waitFor also sees what its probe looks at outside the sandbox, with no change in it', async () => {
    let outside = false;
    setTimeout(() => {
      outside = true;
    }, 20);
    expect(await sandbox.waitFor(() => outside && 'seen', { timeoutMs: 2_000 })).toBe('seen');
  });
});
