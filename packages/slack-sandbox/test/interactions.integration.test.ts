import type {
  BlockAction,
  ButtonAction,
  OverflowAction,
  SlashCommand,
  ViewOutput,
} from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BOT, CHANNELS, PEOPLE, type Sandbox, TEAM } from '../src/index.js';
import { type RunningBoltApp, startBoltApp } from './bolt-fixture.js';
import { startTestSandbox, webClient } from './sandbox-fixture.js';

const ops = CHANNELS.ops.id;

const reasonModal = {
  type: 'modal' as const,
  callback_id: 'reason',
  notify_on_close: true,
  title: { type: 'plain_text' as const, text: 'Reject' },
  submit: { type: 'plain_text' as const, text: 'Reject' },
  blocks: [
    {
      type: 'input',
      block_id: 'reason_block',
      label: { type: 'plain_text' as const, text: 'Reason' },
      element: { type: 'plain_text_input', action_id: 'reason', multiline: true },
    },
  ],
};

const card = [
  { type: 'section', text: { type: 'mrkdwn', text: '*restart* `payments-api`' } },
  {
    type: 'actions',
    block_id: 'decide',
    elements: [
      {
        type: 'button',
        action_id: 'approve',
        style: 'primary',
        text: { type: 'plain_text', text: 'Approve' },
        value: 'gate-1',
      },
      {
        type: 'button',
        action_id: 'reply',
        text: { type: 'plain_text', text: 'Reply' },
        value: 'gate-1',
      },
      {
        type: 'overflow',
        action_id: 'more',
        options: [
          { text: { type: 'plain_text', text: 'Snooze' }, value: 'snooze' },
          { text: { type: 'plain_text', text: 'Details' }, value: 'details' },
        ],
      },
    ],
  },
];

describe('interactions with a real Bolt app over HTTP', () => {
  let sandbox: Sandbox;
  let bolt: RunningBoltApp;
  const commands: SlashCommand[] = [];
  const clicks: BlockAction[] = [];
  const submissions: ViewOutput[] = [];
  const closed: ViewOutput[] = [];

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    bolt = await startBoltApp(sandbox, (app) => {
      app.command('/agent', async ({ command, ack, client }) => {
        commands.push(command);
        if (command.text === 'reject') {
          await ack();
          await client.views.open({ trigger_id: command.trigger_id, view: reasonModal });
        } else if (command.text === 'announce') {
          await ack({ response_type: 'in_channel', text: 'Announced by the app' });
        } else {
          await ack(`Starting: ${command.text}`);
        }
      });
      app.action<BlockAction<ButtonAction>>('approve', async ({ ack, body, action, client }) => {
        await ack();
        clicks.push(body);
        await client.chat.update({
          channel: body.channel?.id ?? '',
          ts: body.message?.ts ?? '',
          text: `Approved by <@${body.user.id}> (${action.value})`,
          blocks: [],
        });
      });
      app.action<BlockAction<ButtonAction>>('reply', async ({ ack, body, respond }) => {
        await ack();
        clicks.push(body);
        await respond({ text: 'Only you can see this' });
        await respond({ replace_original: true, text: 'Replaced through response_url' });
      });
      app.action<BlockAction<OverflowAction>>('more', async ({ ack, body }) => {
        await ack();
        clicks.push(body);
      });
      app.view('reason', async ({ ack, view }) => {
        const reason = view.state.values.reason_block?.reason?.value ?? '';
        if (reason.length < 5) {
          await ack({
            response_action: 'errors',
            errors: { reason_block: 'Please give at least 5 characters' },
          });
          return;
        }
        submissions.push(view);
        await ack();
      });
      app.view({ callback_id: 'reason', type: 'view_closed' }, async ({ ack, view }) => {
        closed.push(view);
        await ack();
      });
    });
  });
  afterAll(async () => {
    await bolt.stop();
    await sandbox.stop();
  });
  beforeEach(() => {
    sandbox.reset();
    commands.length = 0;
    clicks.length = 0;
  });

  it('a slash command reaches app.command with the person, channel and text as typed (should_escape: false, as manifest.yml); the ack text is an ephemeral reply', async () => {
    const result = await sandbox.slashCommand({
      user: 'alice',
      channel: '#ops',
      command: '/agent',
      text: 'restart @bob <web> & #ops',
    });
    expect(result).toMatchObject({ answered: true, status: 200 });
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({
      command: '/agent',
      text: 'restart @bob &lt;web&gt; &amp; #ops',
      user_id: PEOPLE.alice.id,
      user_name: 'alice',
      channel_id: ops,
      channel_name: 'ops',
      team_id: TEAM.id,
      api_app_id: BOT.appId,
      trigger_id: expect.any(String),
      response_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/response\//),
    });
    expect(sandbox.ephemerals('alice')).toMatchObject([
      { channel: ops, from: BOT.userId, text: 'Starting: restart @bob &lt;web&gt; &amp; #ops' },
    ]);
    expect(sandbox.messages(ops)).toEqual([]);
  });

  it('an in_channel ack shows the command and the reply to everyone', async () => {
    await sandbox.slashCommand({
      user: 'alice',
      channel: 'ops',
      command: '/agent',
      text: 'announce',
    });
    expect(sandbox.messages(ops).map((m) => [m.user, m.text])).toEqual([
      [PEOPLE.alice.id, '/agent announce'],
      [BOT.userId, 'Announced by the app'],
    ]);
  });

  it('a button click reaches app.action with the clicker, the message and the value, and the update shows', async () => {
    const posted = await webClient(sandbox).chat.postMessage({
      channel: ops,
      text: 'Approve?',
      blocks: card,
    });
    const result = await sandbox.clickButton({
      user: 'bob',
      channel: 'ops',
      messageTs: String(posted.ts),
      actionId: 'approve',
    });
    expect(result).toMatchObject({ answered: true, status: 200 });
    expect(clicks[0]).toMatchObject({
      type: 'block_actions',
      user: { id: PEOPLE.bob.id, username: 'bob' },
      container: { type: 'message', message_ts: posted.ts, channel_id: ops, is_ephemeral: false },
      channel: { id: ops, name: 'ops' },
      message: {
        ts: posted.ts,
        text: 'Approve?',
        blocks: [{ type: 'section' }, { type: 'actions' }],
      },
      actions: [
        {
          type: 'button',
          action_id: 'approve',
          block_id: 'decide',
          value: 'gate-1',
          style: 'primary',
          text: { type: 'plain_text', text: 'Approve' },
        },
      ],
    });
    const updated = await sandbox.waitFor((s) =>
      s.message(ops, String(posted.ts))?.text.startsWith('Approved')
        ? s.message(ops, String(posted.ts))
        : undefined,
    );
    expect(updated.text).toBe(`Approved by <@${PEOPLE.bob.id}> (gate-1)`);
    expect(updated.edited).toBeDefined();
  });

  it('an overflow choice arrives as selected_option', async () => {
    const posted = await webClient(sandbox).chat.postMessage({
      channel: ops,
      text: 'Approve?',
      blocks: card,
    });
    await sandbox.clickButton({
      user: 'carol',
      channel: 'ops',
      messageTs: String(posted.ts),
      actionId: 'more',
      value: 'snooze',
    });
    expect(clicks[0]?.actions[0]).toMatchObject({
      type: 'overflow',
      selected_option: { text: { type: 'plain_text', text: 'Snooze' }, value: 'snooze' },
    });
  });

  it('respond() posts an ephemeral to the clicker by default and replaces the original with replace_original', async () => {
    const posted = await webClient(sandbox).chat.postMessage({
      channel: ops,
      text: 'Approve?',
      blocks: card,
    });
    await sandbox.clickButton({
      user: 'carol',
      channel: 'ops',
      messageTs: String(posted.ts),
      actionId: 'reply',
    });
    const replaced = await sandbox.waitFor((s) =>
      s.message(ops, String(posted.ts))?.text === 'Replaced through response_url'
        ? s.message(ops, String(posted.ts))
        : undefined,
    );
    expect(replaced.blocks).toEqual([]);
    expect(sandbox.ephemerals('carol').map((e) => e.text)).toEqual(['Only you can see this']);
    expect(sandbox.calls('response_url').map((c) => c.status)).toEqual([200, 200]);
  });

  it('a view submission answered with errors keeps the modal open with the error; a good one closes it', async () => {
    submissions.length = 0;
    await sandbox.slashCommand({ user: 'bob', channel: 'ops', command: '/agent', text: 'reject' });
    const [opened] = await sandbox.waitFor((s) =>
      s.views('bob').length === 1 ? s.views('bob') : undefined,
    );
    expect(opened?.view).toMatchObject({ callback_id: 'reason' });

    const refused = await sandbox.submitView({ user: 'bob', values: { reason_block: 'no' } });
    expect(refused).toMatchObject({ answered: true, status: 200 });
    expect(JSON.parse(refused.answered ? refused.body : '{}')).toMatchObject({
      response_action: 'errors',
    });
    expect(sandbox.views('bob')).toMatchObject([
      {
        id: opened?.id,
        errors: { reason_block: 'Please give at least 5 characters' },
        values: { reason_block: { reason: { type: 'plain_text_input', value: 'no' } } },
      },
    ]);

    await sandbox.submitView({
      user: 'bob',
      values: { reason_block: 'the change window is closed' },
    });
    expect(sandbox.views('bob')).toEqual([]);
    expect(submissions[0]?.state.values.reason_block?.reason?.value).toBe(
      'the change window is closed',
    );
  });

  it('an empty required input is caught by the Slack client: nothing reaches the app', async () => {
    await sandbox.slashCommand({
      user: 'carol',
      channel: 'ops',
      command: '/agent',
      text: 'reject',
    });
    await sandbox.waitFor((s) => s.views('carol').length === 1);
    const result = await sandbox.submitView({ user: 'carol', values: { reason_block: '' } });
    expect(result).toMatchObject({
      answered: false,
      reason: expect.stringContaining('reason_block'),
    });
    expect(sandbox.views('carol')[0]?.errors).toEqual({
      reason_block: 'Please complete this required field.',
    });
  });

  it('closing a modal with notify_on_close sends view_closed to the app', async () => {
    closed.length = 0;
    await sandbox.slashCommand({ user: 'bob', channel: 'ops', command: '/agent', text: 'reject' });
    await sandbox.waitFor((s) => s.views('bob').length === 1);
    const result = await sandbox.closeView({ user: 'bob' });
    expect(result).toMatchObject({ answered: true, status: 200 });
    expect(closed[0]).toMatchObject({ callback_id: 'reason' });
    expect(sandbox.views('bob')).toEqual([]);
  });

  it('a request signed with another secret is rejected by Bolt with 401 and never reaches a listener', async () => {
    const impostor = await startTestSandbox({
      signingSecret: 'not-the-apps-secret',
      appEventsUrl: bolt.url,
    });
    try {
      const result = await impostor.slashCommand({
        user: 'alice',
        channel: 'ops',
        command: '/agent',
        text: 'hi',
      });
      expect(result).toMatchObject({ answered: true, status: 401 });
      expect(commands).toEqual([]);
      expect(impostor.ephemerals('alice')).toMatchObject([
        { from: 'USLACKBOT', text: '/agent failed with the error "http_client_error"' },
      ]);
    } finally {
      await impostor.stop();
    }
  });
});
