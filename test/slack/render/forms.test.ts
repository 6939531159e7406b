import { describe, expect, it } from 'vitest';
import type { PayloadSchema } from '../../../src/approvals/policy/payload-schema.js';
import type { JsonValue } from '../../../src/json.js';
import type { InputBlock, Modal } from '../../../src/slack/codecs/block-kit.js';
import { parseInputSubmission, renderInputModal } from '../../../src/slack/render/input-modal.js';
import { parseEditSubmission, renderEditModal } from '../../../src/slack/render/modals.js';
import { inputGate, vacationGate } from '../../support/records.js';
import { expectValidView } from '../blocks.js';

/**
 * The Edit & approve form (from a payload template and the rule's `payloadSchema`) and the answer
 * form of an input request (from its `responseSchema`) are one engine with two front ends. Each
 * test here names a behaviour the two forms used to have differently, and checks it in both.
 */

type State = Record<string, unknown>;
type Values = Record<string, { value: State }>;
type Reading = { ok: true; value: JsonValue } | { ok: false; errors: Record<string, string> };

interface Form {
  view: Modal;
  /** The input blocks in order. */
  fields: InputBlock[];
  field(index: number): InputBlock;
  submit(values: Values): Reading;
}

function formOf(view: Modal, submit: (values: Values) => Reading): Form {
  expectValidView(view);
  const fields = view.blocks.flatMap((block) => (block.type === 'input' ? [block] : []));
  const field = (index: number) => {
    const found = fields[index];
    if (found === undefined) throw new Error(`no field ${index}`);
    return found;
  };
  return { view, fields, field, submit };
}

function editForm(template: JsonValue, schema?: PayloadSchema): Form {
  const gate = vacationGate(0, template);
  const withSchema =
    schema === undefined ? gate : { ...gate, policy: { ...gate.policy, payloadSchema: schema } };
  const view = renderEditModal({ pauseId: 'p1', gate: withSchema, channelId: 'C1' });
  return formOf(view, (values) => {
    const result = parseEditSubmission(template, values, schema);
    return result.ok ? { ok: true, value: result.payload } : result;
  });
}

function answerForm(responseSchema: JsonValue): Form {
  const base = inputGate(0);
  const gate = { ...base, input: { message: 'Answer me', responseSchema } };
  const view = renderInputModal({ pauseId: 'p1', gate, channelId: 'C1' });
  return formOf(view, (values) => parseInputSubmission(gate, values));
}

function idOf(block: InputBlock): string {
  return block.block_id ?? '';
}

/** What Slack sends for one input. */
function state(block: InputBlock, value: Omit<State, 'type'>): Values {
  return { [idOf(block)]: { value: { type: block.element.type, ...value } } };
}

/** An object schema whose one property is `property`, required or not. */
function oneProperty(property: JsonValue, required = true): JsonValue {
  return { type: 'object', properties: { x: property }, ...(required ? { required: ['x'] } : {}) };
}

describe('one form engine, two front ends: what the two forms used to do differently', () => {
  it('refuses spaces alone as the answer to a required text, in both forms (the answer form took them)', () => {
    const edit = editForm({ note: 'proposed' });
    const answer = answerForm(oneProperty({ type: 'string' }));
    for (const form of [edit, answer]) {
      const field = form.field(0);
      expect(form.submit(state(field, { value: '   ' }))).toEqual({
        ok: false,
        errors: { [idOf(field)]: 'Required.' },
      });
    }
  });

  it("refuses a required list left empty in the app too, not only in Slack's client (the answer form took [])", () => {
    const edit = editForm({ tags: ['a', 'b'] });
    const answer = answerForm(oneProperty({ type: 'array', items: { enum: ['a', 'b'] } }));
    for (const form of [edit, answer]) {
      const field = form.field(0);
      expect(form.submit(state(field, { selected_options: [] }))).toEqual({
        ok: false,
        errors: { [idOf(field)]: 'Choose at least one.' },
      });
    }
  });

  it("says a number field's bounds in words beside its description (the answer form said nothing, the edit form dropped the description)", () => {
    const property = { type: 'integer' as const, minimum: 1, maximum: 9, description: 'How many' };
    const edit = editForm({ x: 3 }, { properties: { x: property } });
    const answer = answerForm(oneProperty(property));
    for (const form of [edit, answer]) {
      expect(form.field(0).hint?.text).toBe('How many · A whole number from 1 to 9.');
      expect(form.field(0).element).toMatchObject({ min_value: '1', max_value: '9' });
    }
  });

  it('gives Slack only bounds its number input takes: whole ones for a whole number, none in exponent notation (the edit form sent 0.5 and 1e+21)', () => {
    const property = { type: 'integer' as const, minimum: 0.5, maximum: 1e21 };
    const edit = editForm({ x: 3 }, { properties: { x: property } });
    const answer = answerForm(oneProperty(property));
    for (const form of [edit, answer]) {
      expect(form.field(0).element).toMatchObject({ type: 'number_input', min_value: '1' });
      expect(form.field(0).element).not.toHaveProperty('max_value');
    }
  });

  it("opens a form whose proposed number breaks the rule's bounds, and refuses it on submission (the view was invalid)", () => {
    const property = { type: 'integer' as const, minimum: 5, maximum: 480 };
    const edit = editForm({ x: 1000 }, { properties: { x: property } });
    const answer = answerForm(oneProperty({ ...property, default: 1000 }));
    for (const form of [edit, answer]) {
      const field = form.field(0);
      expect(field.element).toMatchObject({ initial_value: '1000', min_value: '5' });
      expect(field.element).not.toHaveProperty('max_value');
      const result = form.submit(state(field, { value: '1000' }));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors[idOf(field)]).toContain('480');
    }
  });

  it('never gives an exclusive bound to Slack as an inclusive one; the app refuses the bound itself', () => {
    const form = answerForm(oneProperty({ type: 'number', exclusiveMinimum: 0 }));
    const field = form.field(0);
    expect(field.element).not.toHaveProperty('min_value');
    expect(form.submit(state(field, { value: '0' }))).toEqual({
      ok: false,
      errors: { [idOf(field)]: 'Enter more than 0.' },
    });
  });

  it('starts a date-time picker at the proposed instant or the default, and says it shows local time (the answer form did neither)', () => {
    const instant = '2026-11-23T22:00:00Z';
    const edit = editForm({ x: instant });
    const answer = answerForm(
      oneProperty({ type: 'string', format: 'date-time', default: instant }),
    );
    for (const form of [edit, answer]) {
      expect(form.field(0).element).toMatchObject({
        type: 'datetimepicker',
        initial_date_time: Date.parse(instant) / 1000,
      });
      expect(form.field(0).hint?.text).toBe('Shown in your time zone.');
    }
  });

  it('offers a date picker for `format: date` and reads it back as YYYY-MM-DD (the edit form had a text box)', () => {
    const edit = editForm({ x: '2026-11-23' }, { properties: { x: { format: 'date' } } });
    const answer = answerForm(
      oneProperty({ type: 'string', format: 'date', default: '2026-11-23' }),
    );
    for (const form of [edit, answer]) {
      const field = form.field(0);
      expect(field.element).toMatchObject({ type: 'datepicker', initial_date: '2026-11-23' });
      expect(form.submit(state(field, { selected_date: '2026-12-01' }))).toEqual({
        ok: true,
        value: { x: '2026-12-01' },
      });
    }
  });

  it("starts a select at the proposed value or the schema's default (the answer form ignored the default)", () => {
    const edit = editForm({ x: 'normal' }, { properties: { x: { enum: ['low', 'normal'] } } });
    const answer = answerForm(oneProperty({ enum: ['low', 'normal'], default: 'normal' }));
    for (const form of [edit, answer]) {
      const element = form.field(0).element;
      expect(element.type).toBe('static_select');
      if (element.type !== 'static_select') return;
      expect(element.initial_option?.text.text).toBe('normal');
    }
  });

  it('answers a choice that was never offered in the same words in both forms', () => {
    const edit = editForm(
      { x: 'eu', y: ['a'] },
      { properties: { x: { enum: ['eu', 'us'] }, y: { items: { enum: ['a', 'b'] } } } },
    );
    const answer = answerForm({
      type: 'object',
      properties: { x: { enum: ['eu', 'us'] }, y: { type: 'array', items: { enum: ['a', 'b'] } } },
      required: ['x', 'y'],
    });
    for (const form of [edit, answer]) {
      const [x, y] = [form.field(0), form.field(1)];
      const values = {
        ...state(x, { selected_option: { value: 'mars' } }),
        ...state(y, { selected_options: [{ value: '9' }] }),
      };
      expect(form.submit(values)).toEqual({
        ok: false,
        errors: {
          [idOf(x)]: 'Choose from the listed options only.',
          [idOf(y)]: 'Choose from the listed items only.',
        },
      });
    }
  });

  it('names the key of a problem when no field of its own shows it (the answer form did not say which key)', () => {
    // Past 95 keys the whole value is one JSON field: a key's problem lands there.
    const keys = Array.from({ length: 96 }, (_, index) => `k${index}`);
    const template = Object.fromEntries(keys.map((key) => [key, 'text']));
    const properties = Object.fromEntries(
      keys.map((key) => [key, { type: 'string' as const, maxLength: 4 }]),
    );
    const edit = editForm(template, { properties });
    const answer = answerForm({ type: 'object', properties });
    for (const form of [edit, answer]) {
      expect(form.fields).toHaveLength(1);
      const field = form.field(0);
      const result = form.submit(
        state(field, { value: JSON.stringify({ ...template, k5: 'longer' }) }),
      );
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors[idOf(field)]).toMatch(/^k5: /);
    }
  });

  it('accepts empty every field it shows Slack as optional (the edit form refused an emptied JSON field it marked optional)', () => {
    const edit = editForm({ nothing: null, none: [], blank: '', flag: false, when: '' });
    const answer = answerForm({
      type: 'object',
      properties: {
        nothing: {},
        blank: { type: 'string' },
        flag: { type: 'boolean' },
        when: { type: 'string', format: 'date-time' },
        n: { type: 'number' },
        tags: { type: 'array', items: { enum: ['a'] } },
      },
    });
    for (const form of [edit, answer]) {
      const optional = form.fields.filter((field) => field.optional === true);
      expect(optional.length).toBeGreaterThan(0);
      for (const field of optional) {
        const values = Object.fromEntries(
          form.fields.map((each) => [
            idOf(each),
            { value: { type: each.element.type, ...(each === field ? {} : filled(each)) } },
          ]),
        );
        expect(form.submit(values), `${field.label.text} left empty`).toMatchObject({ ok: true });
      }
    }
  });
});

/** What the field starts with, or else a value it accepts: for a test that empties another. */
function filled(block: InputBlock): State {
  switch (block.element.type) {
    case 'plain_text_input':
      return { value: block.element.initial_value ?? (block.element.multiline ? 'null' : 'text') };
    case 'number_input':
      return { value: block.element.initial_value ?? '1' };
    case 'datetimepicker':
      return { selected_date_time: 1_795_600_800 };
    case 'multi_static_select':
      return { selected_options: [{ value: '0' }] };
    default:
      return {};
  }
}

describe('forms already open in Slack when a new version deploys', () => {
  it('are read back by the same block ids and option values: the edit form', () => {
    const template = { approved_days: 0, region: 'eu', tags: ['a', 'b'] };
    const schema: PayloadSchema = { properties: { region: { enum: ['eu', 'us'] } } };
    const form = editForm(template, schema);
    expect(form.fields.map(idOf)).toEqual([
      'field.0.2cWOhH_1vM',
      'field.1.xpfSmBv0Fl',
      'field.2.l4wviUE1TP',
    ]);
    const values = {
      'field.0.2cWOhH_1vM': { value: { type: 'number_input', value: '3' } },
      // A payload select's option carries its own text.
      'field.1.xpfSmBv0Fl': { value: { type: 'static_select', selected_option: { value: 'us' } } },
      // A list's options carry their positions.
      'field.2.l4wviUE1TP': {
        value: { type: 'multi_static_select', selected_options: [{ value: '1' }] },
      },
    };
    expect(form.submit(values)).toEqual({
      ok: true,
      value: { approved_days: 3, region: 'us', tags: ['b'] },
    });
  });

  it('are read back by the same block ids and option values: the answer form', () => {
    const form = answerForm({
      type: 'object',
      properties: { amount: { type: 'number' }, priority: { enum: ['low', 'normal', 'urgent'] } },
      required: ['amount', 'priority'],
    });
    expect(form.fields.map(idOf)).toEqual(['field.0.zzjZXJxrHZ', 'field.1.MJKl8NugX_']);
    const values = {
      'field.0.zzjZXJxrHZ': { value: { type: 'number_input', value: '1200' } },
      // An answer select's options carry their positions.
      'field.1.MJKl8NugX_': { value: { type: 'static_select', selected_option: { value: '2' } } },
    };
    expect(form.submit(values)).toEqual({ ok: true, value: { amount: 1200, priority: 'urgent' } });
  });
});
