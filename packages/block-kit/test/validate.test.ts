import { describe, expect, it } from 'vitest';
import { checkMessage, checkView, MSG_BLOCKS_TOO_LONG } from '../src/validate.js';

const plain = (text: string) => ({ type: 'plain_text', text });
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text });
const button = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'button',
  text: plain(text),
  action_id: `a-${text.length}`,
  ...extra,
});
const section = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'section',
  text: mrkdwn(text),
  ...extra,
});
const option = (text: string, value = text) => ({ text: plain(text), value });

const validCard = {
  text: 'Approval needed: restart_service',
  blocks: [
    { type: 'header', text: plain('Approval needed'), block_id: 'h' },
    section('*restart_service*\n```{"service":"payments"}```', { block_id: 's1' }),
    { type: 'context', elements: [mrkdwn('Requested by <@U1>'), plain('expires soon')] },
    { type: 'divider' },
    {
      type: 'actions',
      block_id: 'a1',
      elements: [
        button('Approve', { style: 'primary', value: '{"pauseId":"p1"}', action_id: 'approve' }),
        button('Reject', {
          style: 'danger',
          action_id: 'reject',
          confirm: {
            title: plain('Reject?'),
            text: mrkdwn('The agent will be told.'),
            confirm: plain('Reject'),
            deny: plain('Back'),
          },
        }),
        {
          type: 'overflow',
          action_id: 'more',
          options: [option('Edit & approve', 'edit'), option('Reject', 'reject')],
        },
      ],
    },
  ],
};

const modal = (blocks: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'modal',
  callback_id: 'edit',
  title: plain('Edit payload'),
  submit: plain('Approve'),
  close: plain('Cancel'),
  blocks,
  ...extra,
});
const input = (element: Record<string, unknown>, blockId = 'in') => ({
  type: 'input',
  block_id: blockId,
  label: plain('Amount'),
  element: { action_id: 'value', ...element },
});

describe('checkMessage', () => {
  it('finds nothing wrong with a well-formed approval card', () => {
    expect(checkMessage(validCard)).toEqual([]);
  });

  it('refuses a 51st block like Slack does', () => {
    const blocks = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    expect(checkMessage({ text: 'x', blocks })).toEqual([
      'no more than 50 items allowed [json-pointer:/blocks]',
    ]);
    expect(checkMessage({ text: 'x', blocks: blocks.slice(0, 50) })).toEqual([]);
  });

  it('refuses a 76-character button label and points at it', () => {
    const blocks = [
      { type: 'actions', elements: [button('ok'), button('x'.repeat(76), { action_id: 'long' })] },
    ];
    expect(checkMessage({ text: 'x', blocks })).toEqual([
      'must be less than 76 characters [json-pointer:/blocks/0/elements/1/text/text]',
    ]);
    blocks[0]?.elements.pop();
    blocks[0]?.elements.push(button('x'.repeat(75), { action_id: 'long' }));
    expect(checkMessage({ text: 'x', blocks })).toEqual([]);
  });

  it('names a missing field, a wrong type and an empty text', () => {
    const errors = checkMessage({
      text: 'x',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn' } },
        { type: 'section', text: { type: 'mrkdwn', text: 42 } },
        { type: 'section', text: mrkdwn('   ') },
        { type: 'section' },
      ],
    });
    expect(errors).toEqual([
      'missing required field: text [json-pointer:/blocks/0/text]',
      'must provide a string [json-pointer:/blocks/1/text/text]',
      'must be more than 0 characters [json-pointer:/blocks/2/text/text]',
      'must define either `text` or `fields` [json-pointer:/blocks/3/type]',
    ]);
  });

  it('holds section text to 3000 characters and fields to ten of 2000', () => {
    const fields = Array.from({ length: 11 }, () => mrkdwn('f'));
    fields[0] = mrkdwn('y'.repeat(2001));
    const errors = checkMessage({
      text: 'x',
      blocks: [section('x'.repeat(3001)), { type: 'section', fields }],
    });
    expect(errors).toContain(
      'must be less than 3001 characters [json-pointer:/blocks/0/text/text]',
    );
    expect(errors).toContain('no more than 10 items allowed [json-pointer:/blocks/1/fields]');
    expect(errors).toContain(
      'must be less than 2001 characters [json-pointer:/blocks/1/fields/0/text]',
    );
  });

  it('takes plain_text only in headers, up to 150 characters', () => {
    const errors = checkMessage({
      text: 'x',
      blocks: [
        { type: 'header', text: mrkdwn('*bold*') },
        { type: 'header', text: plain('h'.repeat(151)) },
      ],
    });
    expect(errors).toEqual([
      'must be plain_text [json-pointer:/blocks/0/text/type]',
      'must be less than 151 characters [json-pointer:/blocks/1/text/text]',
    ]);
  });

  it('caps context at 10 elements and actions at 25', () => {
    const errors = checkMessage({
      text: 'x',
      blocks: [
        { type: 'context', elements: Array.from({ length: 11 }, () => plain('c')) },
        {
          type: 'actions',
          elements: Array.from({ length: 26 }, (_, i) => button('b', { action_id: `b${i}` })),
        },
        { type: 'actions', elements: [] },
      ],
    });
    expect(errors).toEqual([
      'no more than 10 items allowed [json-pointer:/blocks/0/elements]',
      'no more than 25 items allowed [json-pointer:/blocks/1/elements]',
      'must provide at least 1 items [json-pointer:/blocks/2/elements]',
    ]);
  });

  it('wants block ids unique in the message and action ids unique in their block', () => {
    const errors = checkMessage({
      text: 'x',
      blocks: [
        section('a', { block_id: 'same' }),
        section('b', { block_id: 'same' }),
        {
          type: 'actions',
          elements: [button('a', { action_id: 'go' }), button('b', { action_id: 'go' })],
        },
        { type: 'actions', elements: [button('c', { action_id: 'go' })] },
        section('c', { block_id: 'b'.repeat(256) }),
      ],
    });
    expect(errors).toEqual([
      'must be unique within the message [json-pointer:/blocks/1/block_id]',
      'must be unique within the block [json-pointer:/blocks/2/elements/1/action_id]',
      'must be less than 256 characters [json-pointer:/blocks/4/block_id]',
    ]);
  });

  it('refuses block and element types it does not know', () => {
    const errors = checkMessage({
      text: 'x',
      blocks: [
        { type: 'carousel_of_doom' },
        { type: 'actions', elements: [{ type: 'plain_text_input', action_id: 'i' }] },
        section('s', { accessory: { type: 'number_input', is_decimal_allowed: false } }),
      ],
    });
    expect(errors).toEqual([
      'unsupported type: carousel_of_doom [json-pointer:/blocks/0/type]',
      'unsupported type: plain_text_input [json-pointer:/blocks/1/elements/0/type]',
      'unsupported type: number_input [json-pointer:/blocks/2/accessory/type]',
    ]);
  });

  it('checks button value, url, action_id, style and confirm dialog lengths', () => {
    const errors = checkMessage({
      text: 'x',
      blocks: [
        {
          type: 'actions',
          elements: [
            button('v', { value: 'v'.repeat(2001) }),
            button('u', { url: `https://e.example/${'u'.repeat(3000)}`, action_id: 'u' }),
            button('s', { style: 'green', action_id: 'a'.repeat(256) }),
            button('c', {
              action_id: 'c',
              confirm: {
                title: plain('t'.repeat(101)),
                text: plain('sure?'),
                deny: plain('d'.repeat(31)),
              },
            }),
          ],
        },
      ],
    });
    expect(errors).toEqual([
      'must be less than 2001 characters [json-pointer:/blocks/0/elements/0/value]',
      'must be less than 3001 characters [json-pointer:/blocks/0/elements/1/url]',
      'must be less than 256 characters [json-pointer:/blocks/0/elements/2/action_id]',
      'must be a valid enum value (primary, danger) [json-pointer:/blocks/0/elements/2/style]',
      'must be less than 101 characters [json-pointer:/blocks/0/elements/3/confirm/title/text]',
      'must be less than 31 characters [json-pointer:/blocks/0/elements/3/confirm/deny/text]',
    ]);
  });

  it('caps overflow menus at five options with short values', () => {
    const options = Array.from({ length: 6 }, (_, i) => option(`o${i}`));
    options[0] = option('long', 'v'.repeat(76));
    const errors = checkMessage({
      text: 'x',
      blocks: [section('s', { accessory: { type: 'overflow', action_id: 'o', options } })],
    });
    expect(errors).toEqual([
      'no more than 5 items allowed [json-pointer:/blocks/0/accessory/options]',
      'must be less than 76 characters [json-pointer:/blocks/0/accessory/options/0/value]',
    ]);
  });

  it('refuses a property a text object does not define', () => {
    const errors = checkMessage({
      text: 'x',
      blocks: [{ type: 'section', text: { type: 'plain_text', text: 'a', verbatim: true } }],
    });
    expect(errors).toEqual(['unsupported property [json-pointer:/blocks/0/text/verbatim]']);
  });

  it('names the cumulative text limit separately when every block is valid on its own', () => {
    const blocks = Array.from({ length: 5 }, () => section('x'.repeat(2900)));
    const errors = checkMessage({ text: 'x', blocks });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(`^${MSG_BLOCKS_TOO_LONG}: .*14500.*\\[json-pointer:/blocks\\]$`),
    );
    expect(checkMessage({ text: 'x', blocks: blocks.slice(0, 4) })).toEqual([]);
  });

  it('refuses top-level text over 40,000 characters, a non-string text, and an empty message', () => {
    expect(checkMessage({ text: 'x'.repeat(40_001) })).toEqual([
      'msg_too_long: must be less than 40001 characters [json-pointer:/text]',
    ]);
    expect(checkMessage({ text: 'x'.repeat(40_000) })).toEqual([]);
    expect(checkMessage({ text: 12, blocks: [{ type: 'divider' }] })).toEqual([
      'must provide a string [json-pointer:/text]',
    ]);
    expect(checkMessage({})).toEqual(['no_text: provide text or blocks [json-pointer:/text]']);
  });

  it('survives input that is not Block Kit at all', () => {
    expect(checkMessage({ text: 'x', blocks: 'nope' })).toEqual([
      'must provide an array [json-pointer:/blocks]',
    ]);
    expect(checkMessage({ text: 'x', blocks: [null, 3, []] })).toEqual([
      'must provide an object [json-pointer:/blocks/0]',
      'must provide an object [json-pointer:/blocks/1]',
      'must provide an object [json-pointer:/blocks/2]',
    ]);
  });
});

describe('checkView', () => {
  it('finds nothing wrong with a well-formed modal', () => {
    const view = modal(
      [
        section('Edit the payload'),
        input({
          type: 'number_input',
          is_decimal_allowed: false,
          initial_value: '12',
          min_value: '0',
        }),
        input(
          { type: 'plain_text_input', multiline: true, initial_value: '{}', max_length: 3000 },
          'j',
        ),
        input(
          {
            type: 'multi_static_select',
            options: [option('a'), option('b')],
            initial_options: [option('a')],
          },
          'm',
        ),
        input(
          {
            type: 'checkboxes',
            options: [{ text: mrkdwn('*yes*'), value: 'true' }],
            initial_options: [{ text: mrkdwn('*yes*'), value: 'true' }],
          },
          'c',
        ),
        input({ type: 'static_select', options: [option('a')], initial_option: option('a') }, 's'),
        input({ type: 'radio_buttons', options: [option('a'), option('b')] }, 'r'),
      ],
      { private_metadata: '{"pauseId":"p1"}' },
    );
    expect(checkView(view)).toEqual([]);
  });

  it('refuses a 101st block and long titles', () => {
    const blocks = Array.from({ length: 101 }, () => ({ type: 'divider' }));
    const errors = checkView(
      modal(blocks, { title: plain('t'.repeat(25)), close: plain('c'.repeat(25)) }),
    );
    expect(errors).toEqual([
      'no more than 100 items allowed [json-pointer:/view/blocks]',
      'must be less than 25 characters [json-pointer:/view/title/text]',
      'must be less than 25 characters [json-pointer:/view/close/text]',
    ]);
  });

  it('requires a submit button when the modal has an input', () => {
    const view = modal([section('s'), input({ type: 'plain_text_input' })], { submit: undefined });
    expect(checkView(view)).toEqual([
      'must define submit to use input block [json-pointer:/view/blocks/1/input]',
    ]);
  });

  it('holds private_metadata to 3000 characters and callback_id to 255', () => {
    const errors = checkView(
      modal([section('s')], { private_metadata: 'm'.repeat(3001), callback_id: 'c'.repeat(256) }),
    );
    expect(errors).toEqual([
      'must be less than 3001 characters [json-pointer:/view/private_metadata]',
      'must be less than 256 characters [json-pointer:/view/callback_id]',
    ]);
  });

  it('wants number_input numbers as strings, integers when decimals are not allowed', () => {
    const errors = checkView(
      modal([
        input({ type: 'number_input', initial_value: 3 }, 'a'),
        input({ type: 'number_input', is_decimal_allowed: false, initial_value: '1.5' }, 'b'),
        input(
          { type: 'number_input', is_decimal_allowed: true, min_value: '5', max_value: '1' },
          'c',
        ),
        input({ type: 'number_input', is_decimal_allowed: true, initial_value: 'NaN' }, 'd'),
      ]),
    );
    expect(errors).toEqual([
      'missing required field: is_decimal_allowed [json-pointer:/view/blocks/0/element]',
      'must provide a string [json-pointer:/view/blocks/0/element/initial_value]',
      'must be an integer [json-pointer:/view/blocks/1/element/initial_value]',
      'must not be more than max_value [json-pointer:/view/blocks/2/element/min_value]',
      'must be a number [json-pointer:/view/blocks/3/element/initial_value]',
    ]);
  });

  it('checks option lists: counts, initial options offered, one source of options', () => {
    const errors = checkView(
      modal([
        input(
          { type: 'checkboxes', options: Array.from({ length: 11 }, (_, i) => option(`${i}`)) },
          'a',
        ),
        input(
          { type: 'multi_static_select', options: [option('a')], initial_options: [option('z')] },
          'b',
        ),
        input(
          {
            type: 'static_select',
            options: [option('a')],
            option_groups: [{ label: plain('g'), options: [option('a')] }],
          },
          'c',
        ),
        input(
          { type: 'static_select', options: Array.from({ length: 101 }, (_, i) => option(`${i}`)) },
          'd',
        ),
        input({ type: 'plain_text_input', max_length: 3001, min_length: -1 }, 'e'),
      ]),
    );
    expect(errors).toEqual([
      'no more than 10 items allowed [json-pointer:/view/blocks/0/element/options]',
      'must match one of the provided options [json-pointer:/view/blocks/1/element/initial_options/0]',
      'must provide exactly one of options or option_groups [json-pointer:/view/blocks/2/element]',
      'no more than 100 items allowed [json-pointer:/view/blocks/3/element/options]',
      'must be at least 0 [json-pointer:/view/blocks/4/element/min_length]',
      'must be at most 3000 [json-pointer:/view/blocks/4/element/max_length]',
    ]);
  });

  it('wants block ids unique within the view and refuses markdown blocks in modals', () => {
    const errors = checkView(
      modal([
        section('a', { block_id: 'x' }),
        section('b', { block_id: 'x' }),
        { type: 'markdown', text: '**hi**' },
      ]),
    );
    expect(errors).toEqual([
      'must be unique within the view [json-pointer:/view/blocks/1/block_id]',
      'unsupported type: markdown [json-pointer:/view/blocks/2/type]',
    ]);
  });

  it('refuses what is not a modal or home view', () => {
    expect(checkView(null)).toEqual(['must provide an object [json-pointer:/view]']);
    expect(checkView({ type: 'dialog', blocks: [] })).toEqual([
      'must be a valid enum value (modal, home) [json-pointer:/view/type]',
    ]);
    expect(checkView({ type: 'modal', blocks: [] })).toEqual([
      'missing required field: title [json-pointer:/view]',
    ]);
  });
});
