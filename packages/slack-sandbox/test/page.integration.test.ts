import { mkdirSync } from 'node:fs';
import type { BlockAction, ButtonAction } from '@slack/bolt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHANNELS, PEOPLE, type Sandbox, USERGROUPS } from '../src/index.js';
import { type RunningBoltApp, startBoltApp } from './bolt-fixture.js';
import { launchChromium } from './chromium.js';
import { startTestSandbox, webClient } from './sandbox-fixture.js';

const ARTIFACTS = 'test-artifacts';
const ops = CHANNELS.ops.id;

function approvalCard(gate: string) {
  return [
    { type: 'header', text: { type: 'plain_text', text: ':rotating_light: Approval needed' } },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `<@${PEOPLE.alice.id}> asked the *ops* agent to run \`restart_service\``,
      },
      fields: [
        { type: 'mrkdwn', text: '*Service*\npayments-api' },
        { type: 'mrkdwn', text: '*Environment*\nproduction' },
        { type: 'mrkdwn', text: `*Approvers*\n<!subteam^${USERGROUPS.oncall.id}>` },
        { type: 'mrkdwn', text: '*Needs*\n1 approval' },
      ],
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Expires <!date^1900000000^{date_short} at {time}|soon> · gate \`${gate}\``,
        },
      ],
    },
    {
      type: 'actions',
      block_id: `decide-${gate}`,
      elements: [
        {
          type: 'button',
          action_id: 'approve',
          style: 'primary',
          text: { type: 'plain_text', text: 'Approve' },
          value: gate,
        },
        {
          type: 'button',
          action_id: 'reject',
          style: 'danger',
          text: { type: 'plain_text', text: 'Reject' },
          value: gate,
          confirm: {
            title: { type: 'plain_text', text: 'Reject this call?' },
            text: { type: 'mrkdwn', text: 'The agent will be told *no*.' },
            confirm: { type: 'plain_text', text: 'Reject' },
            deny: { type: 'plain_text', text: 'Keep it' },
            style: 'danger',
          },
        },
      ],
    },
  ];
}

const reasonModal = {
  type: 'modal' as const,
  callback_id: 'reason',
  title: { type: 'plain_text' as const, text: 'Reject restart' },
  submit: { type: 'plain_text' as const, text: 'Reject' },
  close: { type: 'plain_text' as const, text: 'Cancel' },
  blocks: [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: 'Tell the agent why. It will see your reason.' },
    },
    {
      type: 'input',
      block_id: 'reason_block',
      label: { type: 'plain_text' as const, text: 'Reason' },
      hint: { type: 'plain_text' as const, text: 'At least 5 characters.' },
      element: { type: 'plain_text_input', action_id: 'reason', multiline: true },
    },
    {
      type: 'input',
      block_id: 'replicas_block',
      optional: true,
      label: { type: 'plain_text' as const, text: 'Replicas' },
      element: {
        type: 'number_input',
        action_id: 'replicas',
        is_decimal_allowed: false,
        initial_value: '3',
      },
    },
    {
      type: 'input',
      block_id: 'severity_block',
      optional: true,
      label: { type: 'plain_text' as const, text: 'Severity' },
      element: {
        type: 'static_select',
        action_id: 'severity',
        placeholder: { type: 'plain_text', text: 'Pick one' },
        options: [
          { text: { type: 'plain_text', text: 'Low' }, value: 'low' },
          { text: { type: 'plain_text', text: 'High' }, value: 'high' },
        ],
      },
    },
    {
      type: 'input',
      block_id: 'when_block',
      optional: true,
      label: { type: 'plain_text' as const, text: 'Retry' },
      element: {
        type: 'radio_buttons',
        action_id: 'when',
        options: [
          { text: { type: 'plain_text', text: 'Never' }, value: 'never' },
          { text: { type: 'plain_text', text: 'Tomorrow' }, value: 'tomorrow' },
        ],
      },
    },
    {
      type: 'input',
      block_id: 'teams_block',
      optional: true,
      label: { type: 'plain_text' as const, text: 'Teams' },
      element: {
        type: 'multi_static_select',
        action_id: 'teams',
        options: [
          { text: { type: 'plain_text', text: 'Payments' }, value: 'payments' },
          { text: { type: 'plain_text', text: 'Platform' }, value: 'platform' },
          { text: { type: 'plain_text', text: 'Security' }, value: 'security' },
        ],
      },
    },
    {
      type: 'input',
      block_id: 'notify_block',
      optional: true,
      label: { type: 'plain_text' as const, text: 'Notify' },
      element: {
        type: 'checkboxes',
        action_id: 'notify',
        options: [
          { text: { type: 'plain_text', text: 'The requester' }, value: 'requester' },
          { text: { type: 'plain_text', text: '#ops' }, value: 'channel' },
        ],
      },
    },
  ],
};

// A loaded CI machine (four test files at once on two cores, Chromium among them) once took over
// 8 s to show a posted message: the locators wait 15 s, each test 45 s.
describe('the sandbox page in a real browser', { timeout: 45_000 }, () => {
  let sandbox: Sandbox;
  let bolt: RunningBoltApp;
  let browser: Browser;
  let page: Page;
  const clickers: string[] = [];
  const reasons: string[] = [];
  const submitted: unknown[] = [];
  const choices: unknown[] = [];
  const commands: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    sandbox = await startTestSandbox();
    bolt = await startBoltApp(sandbox, (app) => {
      app.command('/agent', async ({ command, ack, client }) => {
        await ack();
        commands.push(command.text);
        if (command.text === 'reject') {
          await client.views.open({ trigger_id: command.trigger_id, view: reasonModal });
        }
      });
      app.action<BlockAction<ButtonAction>>('approve', async ({ ack, body, client }) => {
        await ack();
        clickers.push(body.user.id);
        const channel = body.channel?.id ?? '';
        const ts = body.message?.ts ?? '';
        await client.chat.update({
          channel,
          ts,
          text: `Approved by <@${body.user.id}>`,
          blocks: [
            {
              type: 'section',
              text: { type: 'mrkdwn', text: `:white_check_mark: *Approved* by <@${body.user.id}>` },
            },
          ],
        });
        await client.chat.postMessage({ channel, thread_ts: ts, text: 'Resuming the agent…' });
      });
      app.action<BlockAction<ButtonAction>>('reject', async ({ ack, body, client }) => {
        await ack();
        await client.chat.postEphemeral({
          channel: body.channel?.id ?? '',
          user: body.user.id,
          text: 'Use /agent reject to give a reason.',
        });
      });
      app.action<BlockAction>(/^(more|environment)$/, async ({ ack, action, respond }) => {
        await ack();
        choices.push(action);
        const chosen = 'selected_option' in action ? action.selected_option?.value : undefined;
        await respond({ text: `You chose ${chosen ?? 'nothing'}` });
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
        reasons.push(reason);
        submitted.push(view.state.values);
        await ack();
      });
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await bolt?.stop();
    await sandbox?.stop();
  });
  beforeEach(async () => {
    sandbox.reset();
    clickers.length = 0;
    choices.length = 0;
    commands.length = 0;
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // Fail with the locator's name rather than vitest's bare test timeout.
    page.setDefaultTimeout(15_000);
  });

  async function open(as: string, conversation = ops) {
    await page.goto(`${sandbox.url}/?as=${as}#${conversation}`);
    await page.getByTestId('conversation-title').filter({ hasText: '#' }).waitFor();
  }

  async function postCard(gate: string): Promise<string> {
    const posted = await webClient(sandbox).chat.postMessage({
      channel: ops,
      text: 'Approval needed: restart payments-api',
      blocks: approvalCard(gate),
    });
    return String(posted.ts);
  }

  const messageAt = (ts: string) => page.locator(`[data-testid="message"][data-ts="${ts}"]`);

  it('takes no text in its composer until its script is ready: a command typed while the page loads is sent, not lost', async () => {
    // The workspace comes slowly, as on a busy machine: the composer is wired only after it.
    let loaded = false;
    await page.route('**/sandbox/workspace', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      loaded = true;
      await route.continue();
    });
    await page.goto(`${sandbox.url}/?as=alice#${ops}`);
    const composer = page.getByTestId('composer-input');
    expect(loaded).toBe(false);
    expect(await composer.isDisabled()).toBe(true);
    await composer.fill('/agent typed early');
    await composer.press('Enter');
    await expect.poll(() => commands).toEqual(['typed early']);
    expect(loaded).toBe(true);
  });

  it('renders a message with blocks: header, fields, mentions, context and styled buttons', async () => {
    await open('bob');
    const ts = await postCard('g-1');
    const message = messageAt(ts);
    await message.waitFor();
    expect(await message.locator('.bk-header-text').textContent()).toBe('🚨 Approval needed');
    expect(await message.locator('.bk-field').count()).toBe(4);
    expect(await message.locator('.mention').allInnerTexts()).toEqual(['@alice', '@oncall']);
    expect(await message.locator('.mention-me').allInnerTexts()).toEqual(['@oncall']);
    expect(await message.locator('.bk-context time.date').count()).toBe(1);
    const approve = message.getByRole('button', { name: 'Approve', exact: true });
    expect(await approve.getAttribute('class')).toContain('primary');
    expect(await message.getByRole('button', { name: 'Reject' }).getAttribute('class')).toContain(
      'danger',
    );
    await page.screenshot({ path: `${ARTIFACTS}/sandbox-card.png` });
  });

  it('renders mrkdwn formatting, and <script> or <img onerror> in a message only as text', async () => {
    await open('alice');
    const hostile =
      'Look: &lt;script&gt;window.pwned = 1&lt;/script&gt; <img src=x onerror="window.pwned=2">';
    const formatted =
      '*bold* _italic_ ~strike~ `code` <https://example.com|a link> <javascript:window.pwned=3|click me>\n&gt; quoted &amp; kept\n```const x = 1 < 2;```';
    const client = webClient(sandbox);
    const first = await client.chat.postMessage({ channel: ops, text: hostile });
    await client.chat.postMessage({
      channel: ops,
      text: 'formatted',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: formatted } },
        {
          type: 'section',
          text: { type: 'plain_text', text: '<img src=x onerror="window.pwned=4">' },
        },
      ],
    });
    await page.locator('[data-testid="message"] .quote').waitFor();
    expect(await messageAt(String(first.ts)).getByTestId('message-text').textContent()).toBe(
      'Look: <script>window.pwned = 1</script> <img src=x onerror="window.pwned=2">',
    );
    const list = page.getByTestId('message-list');
    expect(await list.locator('script, img[src="x"]').count()).toBe(0);
    expect(await list.locator('strong').allInnerTexts()).toContain('bold');
    expect(await list.locator('em').allInnerTexts()).toContain('italic');
    expect(await list.locator('s').allInnerTexts()).toContain('strike');
    expect(await list.locator('code.inline-code').allInnerTexts()).toContain('code');
    expect(await list.locator('a', { hasText: 'a link' }).getAttribute('href')).toBe(
      'https://example.com/',
    );
    expect(await list.locator('a', { hasText: 'click me' }).count()).toBe(0);
    expect(await list.locator('.quote').textContent()).toBe('quoted & kept');
    expect(await list.locator('pre.code-block').textContent()).toBe('const x = 1 < 2;');
    expect(await list.textContent()).toContain('<img src=x onerror="window.pwned=4">');
    expect(await page.evaluate(() => Reflect.get(globalThis, 'pwned'))).toBeUndefined();
    await page.screenshot({ path: `${ARTIFACTS}/sandbox-mrkdwn.png` });
  });

  it('a click reaches the Bolt app, which updates the message live, and its thread reply shows', async () => {
    await open('bob');
    const ts = await postCard('g-2');
    await messageAt(ts).getByRole('button', { name: 'Approve', exact: true }).click();
    await messageAt(ts).getByText('Approved by @bob').waitFor();
    expect(clickers).toEqual([PEOPLE.bob.id]);
    await messageAt(ts).getByTestId('thread-summary').filter({ hasText: '1 reply' }).click();
    await page.getByTestId('thread-pane').getByText('Resuming the agent…').waitFor();
    await page.getByTestId('calls-toggle').click();
    await page.getByTestId('calls-pane').getByText('chat.update').waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/sandbox-approved-thread.png` });
  });

  it('a confirm dialog guards a button, and the app can answer with an ephemeral', async () => {
    await open('carol');
    const ts = await postCard('g-3');
    await messageAt(ts).getByRole('button', { name: 'Reject' }).click();
    const dialog = page.getByTestId('confirm-dialog');
    await dialog.getByText('The agent will be told').waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/sandbox-confirm.png` });
    await dialog.getByRole('button', { name: 'Reject' }).click();
    const ephemeral = page.getByTestId('ephemeral');
    await ephemeral.getByText('Only visible to you').waitFor();
    expect(await ephemeral.textContent()).toContain('Use /agent reject to give a reason.');
    expect(sandbox.ephemerals('carol')).toHaveLength(1);
  });

  it('renders accessories, images and selects, and their choices reach the app as selected_option', async () => {
    await open('carol');
    const tinyPng =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const posted = await webClient(sandbox).chat.postMessage({
      channel: ops,
      text: 'Deploy summary',
      blocks: [
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: '*payments-api* `v2.14.0` is ready to deploy.\n3 services, 12 files changed.',
          },
          accessory: {
            type: 'overflow',
            action_id: 'more',
            options: [
              { text: { type: 'plain_text', text: 'View diff' }, value: 'diff' },
              { text: { type: 'plain_text', text: 'Snooze 1 hour' }, value: 'snooze' },
            ],
          },
        },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: 'Owner: <!subteam^S0ONCALL001>  ·  Runbook: <https://runbooks.example/payments|payments>',
          },
          accessory: { type: 'image', image_url: tinyPng, alt_text: 'service icon' },
        },
        { type: 'divider' },
        {
          type: 'actions',
          elements: [
            {
              type: 'static_select',
              action_id: 'environment',
              placeholder: { type: 'plain_text', text: 'Environment' },
              options: [
                { text: { type: 'plain_text', text: 'staging' }, value: 'staging' },
                { text: { type: 'plain_text', text: 'production' }, value: 'production' },
              ],
            },
            {
              type: 'button',
              action_id: 'approve',
              text: { type: 'plain_text', text: 'Deploy' },
              style: 'primary',
            },
          ],
        },
        {
          type: 'context',
          elements: [
            { type: 'image', image_url: tinyPng, alt_text: 'bot' },
            { type: 'mrkdwn', text: 'Requested by <@U0ALICE0001> · <#C0PAYMENTS1>' },
          ],
        },
      ],
    });
    await webClient(sandbox).chat.postEphemeral({
      channel: ops,
      user: PEOPLE.carol.id,
      text: ':hourglass: Waiting for a second approver.',
    });
    const message = messageAt(String(posted.ts));
    await message.waitFor();
    await page.getByTestId('ephemeral').first().waitFor();
    await message.getByRole('button', { name: 'More actions' }).click();
    await page
      .getByTestId('overflow-menu')
      .getByRole('menuitem', { name: 'Snooze 1 hour' })
      .waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/sandbox-gallery.png` });
    await page.getByRole('menuitem', { name: 'Snooze 1 hour' }).click();
    await page.getByTestId('ephemeral').getByText('You chose snooze').waitFor();
    await message.getByRole('combobox', { name: 'Environment' }).selectOption('production');
    await page.getByTestId('ephemeral').getByText('You chose production').waitFor();
    expect(choices).toMatchObject([
      { type: 'overflow', selected_option: { value: 'snooze' } },
      { type: 'static_select', selected_option: { value: 'production' } },
    ]);
    expect(await message.locator('img.bk-accessory-img').getAttribute('alt')).toBe('service icon');
  });

  it('a typed message is posted as the person, with @mentions and #channels linked, and can be replied to in a thread', async () => {
    await open('dave');
    await page.getByTestId('composer-input').fill('hi @carol, see #payments & <b>this</b>');
    await page.getByTestId('composer-input').press('Enter');
    const text = page.locator(
      '[data-testid="message"][data-user="U0DAVE00001"] [data-testid="message-text"]',
    );
    await text.waitFor();
    expect(await text.textContent()).toBe('hi @carol, see #payments & <b>this</b>');
    expect(await text.locator('.mention').textContent()).toBe('@carol');
    expect(sandbox.messages(ops)[0]?.text).toBe(
      'hi <@U0CAROL0001|carol>, see <#C0PAYMENTS1|payments> &amp; &lt;b&gt;this&lt;/b&gt;',
    );
    expect(await page.getByTestId('channel-list').getByRole('button').allTextContents()).toEqual([
      '#general',
      '#ops',
      '#incidents',
      '#releases',
    ]);

    const mine = page.locator('[data-testid="message"][data-user="U0DAVE00001"]');
    await mine.hover();
    await mine.getByTestId('reply-in-thread').click();
    await page.getByTestId('thread-input').fill('and a reply in the thread');
    await page.getByTestId('thread-input').press('Enter');
    await page.getByTestId('thread-pane').getByText('and a reply in the thread').waitFor();
    await mine.getByTestId('thread-summary').filter({ hasText: '1 reply' }).waitFor();
    expect(sandbox.replies(ops, sandbox.messages(ops)[0]?.ts ?? '').map((m) => m.text)).toEqual([
      'and a reply in the thread',
    ]);
  });

  it('the person switch changes who clicks', async () => {
    await open('bob');
    const ts = await postCard('g-4');
    await messageAt(ts).waitFor();
    await page.getByTestId('person-switch').selectOption(PEOPLE.carol.id);
    await page.waitForURL(/as=U0CAROL0001/);
    await messageAt(ts).getByRole('button', { name: 'Approve', exact: true }).click();
    await messageAt(ts).getByText('Approved by @carol').waitFor();
    expect(clickers).toEqual([PEOPLE.carol.id]);
  });

  it('a modal opened from a slash command shows validation errors under the input and stays open', async () => {
    await open('bob');
    await page.getByTestId('composer-input').fill('/agent reject');
    await page.getByTestId('composer-input').press('Enter');
    const modal = page.getByTestId('modal');
    await modal.getByRole('heading', { name: 'Reject restart' }).waitFor();
    expect(await modal.getByLabel('Replicas').inputValue()).toBe('3');
    await modal.getByLabel('Reason').fill('no');
    await modal.getByLabel('The requester').check();
    await modal.getByTestId('modal-submit').click();
    const error = modal.getByTestId('input-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Please give at least 5 characters');
    expect(await modal.getByLabel('Reason').inputValue()).toBe('no');
    expect(await modal.getByLabel('The requester').isChecked()).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}/sandbox-modal-errors.png` });

    await modal.getByLabel('Reason').fill('The change window is closed');
    await modal.getByLabel('Severity').selectOption('high');
    await modal.getByLabel('Tomorrow').check();
    await modal.getByLabel('Teams').selectOption(['payments', 'security']);
    await modal.getByLabel('Replicas').fill('5');
    await modal.getByTestId('modal-submit').click();
    await modal.waitFor({ state: 'detached' });
    expect(reasons).toEqual(['The change window is closed']);
    expect(submitted.at(-1)).toMatchObject({
      replicas_block: { replicas: { type: 'number_input', value: '5' } },
      severity_block: { severity: { selected_option: { value: 'high' } } },
      when_block: { when: { selected_option: { value: 'tomorrow' } } },
      teams_block: { teams: { selected_options: [{ value: 'payments' }, { value: 'security' }] } },
      notify_block: { notify: { selected_options: [{ value: 'requester' }] } },
    });
  });
});
