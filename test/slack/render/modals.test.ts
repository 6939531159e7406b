import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/json.js';
import { CALLBACK_IDS } from '../../../src/slack/codecs/action-ids.js';
import type { Modal } from '../../../src/slack/codecs/block-kit.js';
import {
  parseEditMetadata,
  parseRejectMetadata,
} from '../../../src/slack/codecs/modal-metadata.js';
import { fieldBlockId, ROOT_BLOCK_ID } from '../../../src/slack/render/forms/field.js';
import {
  parseEditSubmission,
  parseRejectSubmission,
  REASON_BLOCK_ID,
  renderEditModal,
  renderRejectModal,
} from '../../../src/slack/render/modals.js';
import { gateRecord, vacationGate } from '../../support/records.js';
import { expectInert, expectValidView } from '../blocks.js';
import { pick, randomText, seeded } from '../random.js';

type StateValues = Record<string, Record<string, Record<string, unknown>>>;

function editModal(template: JsonValue | undefined) {
  const gate = template === undefined ? gateRecord() : vacationGate(0, template);
  const view = renderEditModal({ pauseId: 'p1', gate, channelId: 'C1', messageTs: '1.2' });
  expectValidView(view);
  expectInert(view.blocks.filter((block) => block.type !== 'input'));
  return view;
}

function inputs(view: Modal) {
  return view.blocks.flatMap((block) => (block.type === 'input' ? [block] : []));
}

/** What Slack sends back for an untouched form: each input's initial value. */
function untouched(view: Modal): StateValues {
  const values: StateValues = {};
  for (const block of inputs(view)) {
    const element = block.element;
    const id = block.block_id ?? '';
    const actionId = element.action_id ?? '';
    switch (element.type) {
      case 'plain_text_input':
      case 'number_input':
        values[id] = { [actionId]: { type: element.type, value: element.initial_value ?? null } };
        break;
      case 'checkboxes':
      case 'multi_static_select':
        values[id] = {
          [actionId]: { type: element.type, selected_options: element.initial_options ?? [] },
        };
        break;
      default:
        throw new Error(`unexpected ${element.type}`);
    }
  }
  return values;
}

function setValue(values: StateValues, blockId: string, state: Record<string, unknown>) {
  values[blockId] = { value: state };
}

describe('a bidi argument in a modal', () => {
  it('is shown with the control visible', () => {
    const gate = vacationGate(0, { approved_days: 1 });
    const bidi = {
      ...gate,
      originalCall: { ...gate.originalCall, args: { note: 'ok\u202Eevil' } },
    };
    const view = renderEditModal({ pauseId: 'p1', gate: bidi, channelId: 'C1', messageTs: '1.2' });
    expect(JSON.stringify(view.blocks)).toContain('ok⟨U+202E⟩evil');
    expect(JSON.stringify(view.blocks)).not.toContain('\u202e');
  });
});

describe('the edit modal builds a form from the payload template', () => {
  const template = {
    approved_days: 0,
    ratio: 0.5,
    urgent: false,
    note: 'short',
    essay: 'line one\nline two',
    tags: ['a', 'b', 'c'],
    sizes: [1, 2.5],
    nested: { a: 1 },
    nothing: null,
    mixed: [1, 'x'],
  };
  const view = editModal(template);
  const byKey = (key: string) => {
    const index = Object.keys(template).indexOf(key);
    const block = inputs(view).find(({ block_id }) => block_id === fieldBlockId(key, index));
    if (!block) throw new Error(`no field for ${key}`);
    return block.element;
  };

  it('is the edit modal, with its ids in private_metadata', () => {
    expect(view.callback_id).toBe(CALLBACK_IDS.editModal);
    expect(parseEditMetadata(view.private_metadata)).toEqual({
      pauseId: 'p1',
      callId: gateRecord().confirmationCallId,
      channelId: 'C1',
      messageTs: '1.2',
    });
  });

  it('asks for whole numbers where the template has one, decimals where not', () => {
    expect(byKey('approved_days')).toMatchObject({
      type: 'number_input',
      is_decimal_allowed: false,
      initial_value: '0',
    });
    expect(byKey('ratio')).toMatchObject({
      type: 'number_input',
      is_decimal_allowed: true,
      initial_value: '0.5',
    });
  });

  it('uses a checkbox for booleans and text boxes for strings, multiline for long ones', () => {
    expect(byKey('urgent')).toMatchObject({ type: 'checkboxes' });
    expect(byKey('note')).toMatchObject({
      type: 'plain_text_input',
      multiline: false,
      initial_value: 'short',
    });
    expect(byKey('essay')).toMatchObject({ type: 'plain_text_input', multiline: true });
  });

  it('offers short lists as a multi-select with every item selected', () => {
    const tags = byKey('tags');
    expect(tags.type).toBe('multi_static_select');
    if (tags.type !== 'multi_static_select') return;
    expect(tags.initial_options?.map(({ text }) => text.text)).toEqual(['a', 'b', 'c']);
  });

  it('falls back to JSON for objects, nulls and mixed lists', () => {
    for (const key of ['nested', 'nothing', 'mixed']) {
      expect(byKey(key)).toMatchObject({ type: 'plain_text_input', multiline: true });
    }
  });

  it('gives the template back unchanged when nothing is edited', () => {
    expect(parseEditSubmission(template, untouched(view))).toEqual({ ok: true, payload: template });
  });

  it('brings edited values back typed', () => {
    const values = untouched(view);
    const id = (key: string) => fieldBlockId(key, Object.keys(template).indexOf(key));
    setValue(values, id('approved_days'), { type: 'number_input', value: '2' });
    setValue(values, id('urgent'), { type: 'checkboxes', selected_options: [{ value: 'true' }] });
    setValue(values, id('tags'), {
      type: 'multi_static_select',
      selected_options: [{ value: '2' }, { value: '0' }],
    });
    setValue(values, id('nested'), { type: 'plain_text_input', value: '{"a": 7}' });
    setValue(values, id('nothing'), { type: 'plain_text_input', value: '"anything"' });
    setValue(values, id('note'), { type: 'plain_text_input', value: 'longer' });
    const result = parseEditSubmission(template, values);
    expect(result).toEqual({
      ok: true,
      payload: {
        ...template,
        approved_days: 2,
        urgent: true,
        tags: ['a', 'c'],
        nested: { a: 7 },
        nothing: 'anything',
        note: 'longer',
      },
    });
  });

  it('refuses a bad number, bad JSON and a wrong shape, each keyed by its block id', () => {
    const values = untouched(view);
    const id = (key: string) => fieldBlockId(key, Object.keys(template).indexOf(key));
    setValue(values, id('approved_days'), { type: 'number_input', value: '1.5' });
    setValue(values, id('ratio'), { type: 'number_input', value: 'NaN' });
    setValue(values, id('nested'), { type: 'plain_text_input', value: '{"a": 1,}' });
    setValue(values, id('mixed'), { type: 'plain_text_input', value: '[true]' });
    const result = parseEditSubmission(template, values);
    expect(result).toEqual({
      ok: false,
      errors: {
        [id('approved_days')]: 'Enter a whole number, like 12.',
        [id('ratio')]: 'Enter a number, like 12 or 0.5.',
        [id('nested')]: 'This is not valid JSON: check the quotes, commas and brackets.',
        [id('mixed')]: 'At [0]: expected a number, got a boolean.',
      },
    });
  });

  it('names the path where an edited JSON value goes wrong', () => {
    const deep = { order: { items: [{ sku: 'a', qty: 1 }] } };
    const values = untouched(editModal(deep));
    setValue(values, fieldBlockId('order', 0), {
      type: 'plain_text_input',
      value: '{"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": "two"}]}',
    });
    expect(parseEditSubmission(deep, values)).toEqual({
      ok: false,
      errors: { [fieldBlockId('order', 0)]: 'At .items[1].qty: expected a number, got a string.' },
    });
    setValue(values, fieldBlockId('order', 0), {
      type: 'plain_text_input',
      value: '{"items": [], "extra": 1}',
    });
    expect(parseEditSubmission(deep, values)).toMatchObject({
      ok: false,
      errors: { [fieldBlockId('order', 0)]: 'At the top level: unexpected key "extra".' },
    });
  });

  it('requires the numbers and JSON fields', () => {
    const values = untouched(view);
    const id = (key: string) => fieldBlockId(key, Object.keys(template).indexOf(key));
    setValue(values, id('approved_days'), { type: 'number_input', value: null });
    setValue(values, id('nested'), { type: 'plain_text_input', value: '  ' });
    expect(parseEditSubmission(template, values)).toMatchObject({
      ok: false,
      errors: {
        [id('approved_days')]: 'Enter a whole number, like 12.',
        [id('nested')]: 'Enter a JSON value.',
      },
    });
  });

  it('answers values that are not a view state with an error, not an exception', () => {
    expect(parseEditSubmission(template, 'nope')).toMatchObject({ ok: false });
    expect(parseEditSubmission(template, { x: { value: { type: 1 } } })).toMatchObject({
      ok: false,
    });
  });
});

describe('templates of every shape round-trip', () => {
  const templates: JsonValue[] = [
    3,
    2.25,
    true,
    'plain',
    ['x', 'y'],
    [1, 2, 3],
    null,
    [],
    {},
    {
      '': 1,
      ' ': 'blank key',
      ['__proto__']: { a: 1 },
      ['k'.repeat(400)]: true,
      '<!channel>': 'x',
    },
    { long: 'z'.repeat(5_000), list: Array.from({ length: 150 }, (_, i) => i) },
    { big: 1e21, tiny: 1e-7, negative: -4 },
    Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`k${i}`, i])),
    { items: ['<@U1>', '&amp;', 'a'.repeat(76)] },
  ];
  for (const template of templates) {
    it(`keeps ${JSON.stringify(template).slice(0, 60)}`, () => {
      const view = editModal(template);
      expect(view.blocks.length).toBeLessThanOrEqual(100);
      expect(parseEditSubmission(template, untouched(view))).toEqual({
        ok: true,
        payload: template,
      });
    });
  }

  it('takes any JSON for the whole payload when the tool sent no template', () => {
    const view = editModal(undefined);
    const values: StateValues = {};
    setValue(values, ROOT_BLOCK_ID, { type: 'plain_text_input', value: '{"free": [1, "form"]}' });
    expect(parseEditSubmission(undefined, values)).toEqual({
      ok: true,
      payload: { free: [1, 'form'] },
    });
    expect(parseEditSubmission(undefined, untouched(view))).toMatchObject({ ok: false });
  });

  it('stays valid for random templates', () => {
    const random = seeded(99);
    const value = (depth: number): JsonValue => {
      const kind = pick(random, ['n', 'f', 'b', 's', 'l', 'o', 'z'] as const);
      if (kind === 'n') return Math.floor(random() * 1000) - 500;
      if (kind === 'f') return random() * 10;
      if (kind === 'b') return random() < 0.5;
      if (kind === 's') return randomText(random, Math.floor(random() * 200));
      if (kind === 'z' || depth > 2) return null;
      if (kind === 'l')
        return Array.from({ length: Math.floor(random() * 5) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 6) }, () => [
          randomText(random, 8),
          value(depth + 1),
        ]),
      );
    };
    for (let round = 0; round < 100; round += 1) {
      const template = value(0);
      const view = editModal(template);
      expect(parseEditSubmission(template, untouched(view))).toEqual({
        ok: true,
        payload: template,
      });
    }
  });
});

describe('the reject modal', () => {
  it('asks for a reason that the policy requires, and refuses a blank one', () => {
    const view = renderRejectModal({
      pauseId: 'p1',
      callIds: ['c1'],
      calls: [{ name: 'transfer_money<!channel>', args: { amount: 250 } }],
      reasonRequired: true,
    });
    expectValidView(view);
    expectInert(view.blocks);
    expect(view.callback_id).toBe(CALLBACK_IDS.rejectModal);
    expect(parseRejectMetadata(view.private_metadata)).toEqual({ pauseId: 'p1', callIds: ['c1'] });
    const reason = (value: string | null) => ({
      [REASON_BLOCK_ID]: { value: { type: 'plain_text_input', value } },
    });
    expect(parseRejectSubmission(reason('   '), { reasonRequired: true })).toEqual({
      ok: false,
      errors: { [REASON_BLOCK_ID]: 'A reason is required to reject this.' },
    });
    expect(parseRejectSubmission(reason(' too risky '), { reasonRequired: true })).toEqual({
      ok: true,
      reason: 'too risky',
    });
    expect(parseRejectSubmission(reason(null), { reasonRequired: false })).toEqual({ ok: true });
    expect(
      parseRejectSubmission(reason('x'.repeat(2_001)), { reasonRequired: false }),
    ).toMatchObject({
      ok: false,
    });
  });

  it('covers many calls, and leaves the ids out of metadata when too many to fit', () => {
    const callIds = Array.from(
      { length: 120 },
      (_, i) => `adk-10216514-a15a-46bd-ba42-b1839004${i}`,
    );
    const view = renderRejectModal({
      pauseId: 'p1',
      callIds,
      calls: callIds.map((_, i) => ({ name: `tool_${i}`, args: {} })),
      reasonRequired: false,
      channelId: 'C1',
      messageTs: '1.2',
    });
    expectValidView(view);
    expect(parseRejectMetadata(view.private_metadata)).toEqual({
      pauseId: 'p1',
      channelId: 'C1',
      messageTs: '1.2',
    });
    const inputBlock = view.blocks.find((block) => block.type === 'input');
    expect(inputBlock).toMatchObject({ optional: true });
  });

  it('keeps titles within 24 characters whatever the tool is called', () => {
    const view = renderRejectModal({
      pauseId: 'p1',
      callIds: ['c1'],
      calls: [{ name: 'an_extremely_long_tool_name_that_goes_on_and_on'.repeat(10), args: {} }],
      reasonRequired: false,
    });
    expectValidView(view);
  });
});

describe('the edit form refuses what the tool would refuse (#12)', () => {
  const template = {
    start: '2026-11-23T22:00:00Z',
    durationMinutes: 60,
    notifyCustomers: true,
    services: ['payments-api'],
    region: 'eu',
    note: '',
  };
  const schema = {
    type: 'object' as const,
    required: ['start', 'durationMinutes'],
    properties: {
      durationMinutes: { type: 'integer' as const, minimum: 5, maximum: 480 },
      region: { type: 'string' as const, enum: ['eu', 'us'] },
      note: { type: 'string' as const, maxLength: 10 },
      services: {
        type: 'array' as const,
        items: { enum: ['payments-api', 'ledger', 'web'] },
      },
    },
  };
  const gate = vacationGate(0, template);
  const withSchema = { ...gate, policy: { ...gate.policy, payloadSchema: schema } };
  const view = renderEditModal({ pauseId: 'p1', gate: withSchema, channelId: 'C1' });
  const id = (key: string) => fieldBlockId(key, Object.keys(template).indexOf(key));
  const field = (key: string) => inputs(view).find((block) => block.block_id === id(key));

  it('labels fields in words and requires what the tool proposed a value for', () => {
    expectValidView(view);
    expect(field('durationMinutes')).toMatchObject({
      label: { text: 'Duration (minutes)' },
      optional: false,
      element: { type: 'number_input', min_value: '5', max_value: '480' },
    });
    expect(field('notifyCustomers')).toMatchObject({ label: { text: 'Notify customers' } });
    expect(field('services')).toMatchObject({ optional: false });
    expect(field('note')).toMatchObject({ optional: true });
  });

  it('offers a date-time picker for an ISO date-time and a select for an enum', () => {
    expect(field('start')).toMatchObject({
      optional: false,
      element: { type: 'datetimepicker', initial_date_time: Date.parse(template.start) / 1000 },
    });
    expect(field('region')).toMatchObject({
      element: { type: 'static_select', initial_option: { value: 'eu' } },
    });
  });

  it("offers the schema's other allowed items in a list, unselected, and reads an added one back", () => {
    const services = field('services')?.element;
    expect(services?.type).toBe('multi_static_select');
    if (services?.type !== 'multi_static_select') return;
    expect(services.options?.map(({ text }) => text.text)).toEqual([
      'payments-api',
      'ledger',
      'web',
    ]);
    expect(services.initial_options?.map(({ text }) => text.text)).toEqual(['payments-api']);
    const web = services.options?.find(({ text }) => text.text === 'web')?.value ?? '';
    const payments = services.initial_options?.[0]?.value ?? '';
    const values = {
      [id('start')]: { value: { type: 'datetimepicker', selected_date_time: 1_795_600_800 } },
      [id('durationMinutes')]: { value: { type: 'number_input', value: '60' } },
      [id('notifyCustomers')]: { value: { type: 'checkboxes', selected_options: [] } },
      [id('services')]: {
        value: {
          type: 'multi_static_select',
          selected_options: [{ value: web }, { value: payments }],
        },
      },
      [id('region')]: { value: { type: 'static_select', selected_option: { value: 'eu' } } },
      [id('note')]: { value: { type: 'plain_text_input', value: null } },
    };
    const result = parseEditSubmission(template, values, schema);
    expect(result).toMatchObject({ ok: true, payload: { services: ['payments-api', 'web'] } });
  });

  it('reads the picker back as ISO 8601 UTC', () => {
    const values = {
      [id('start')]: { value: { type: 'datetimepicker', selected_date_time: 1_795_600_800 } },
      [id('durationMinutes')]: { value: { type: 'number_input', value: '90' } },
      [id('notifyCustomers')]: { value: { type: 'checkboxes', selected_options: [] } },
      [id('services')]: {
        value: { type: 'multi_static_select', selected_options: [{ value: '0' }] },
      },
      [id('region')]: { value: { type: 'static_select', selected_option: { value: 'us' } } },
      [id('note')]: { value: { type: 'plain_text_input', value: null } },
    };
    expect(parseEditSubmission(template, values, schema)).toEqual({
      ok: true,
      payload: {
        start: '2026-11-25T10:00:00Z',
        durationMinutes: 90,
        notifyCustomers: false,
        services: ['payments-api'],
        region: 'us',
        note: '',
      },
    });
  });

  it("puts the schema's errors on their fields before anything is decided", () => {
    const values: StateValues = {
      [id('start')]: { value: { type: 'datetimepicker', selected_date_time: null } },
      [id('durationMinutes')]: { value: { type: 'number_input', value: '1000' } },
      [id('notifyCustomers')]: { value: { type: 'checkboxes', selected_options: [] } },
      [id('services')]: { value: { type: 'multi_static_select', selected_options: [] } },
      [id('region')]: { value: { type: 'static_select', selected_option: { value: 'eu' } } },
      [id('note')]: { value: { type: 'plain_text_input', value: 'far too long a note' } },
    };
    const first = parseEditSubmission(template, values, schema);
    // The fields' own checks first: a required picker and list left empty.
    expect(first).toEqual({
      ok: false,
      errors: {
        [id('start')]: 'Choose a date and time.',
        [id('services')]: 'Choose at least one.',
      },
    });
    values[id('start')] = { value: { type: 'datetimepicker', selected_date_time: 1_795_600_800 } };
    values[id('services')] = {
      value: { type: 'multi_static_select', selected_options: [{ value: '0' }] },
    };
    expect(parseEditSubmission(template, values, schema)).toEqual({
      ok: false,
      errors: {
        [id('durationMinutes')]: 'Enter a number from 5 to 480.',
        [id('note')]: 'Enter at most 10 characters.',
      },
    });
  });

  it('names the call in the reject modal, so two calls of one tool are told apart', () => {
    const modal = renderRejectModal({
      pauseId: 'p1',
      callIds: ['c2'],
      calls: [{ name: 'restart_service', args: { service: 'ledger' } }],
      reasonRequired: false,
    });
    expect(JSON.stringify(modal.blocks)).toContain('Reject `restart_service` (service: ledger)?');
  });
});
