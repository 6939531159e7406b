import { h } from './dom.js';
import { choiceGroup, selectElement } from './elements.js';
import { decodeEntities, plainText } from './mrkdwn.js';

/**
 * Input blocks in modals: the label, the control holding what the person entered (or the
 * initial value), the hint, and the error Slack shows under it. Each input registers a reader
 * in `env.inputs` so the modal can collect values on submit.
 */

/** The value an input holds: from the view's state when the person entered something, else its initial value. */
function heldValue(element, blockId, env) {
  const state = env.values?.[blockId]?.[element.action_id];
  if (state) {
    if ('selected_options' in state) return (state.selected_options ?? []).map((o) => o.value);
    if ('selected_option' in state) return state.selected_option?.value ?? null;
    if ('selected_date_time' in state) {
      return state.selected_date_time == null ? null : String(state.selected_date_time);
    }
    for (const key of [
      'value',
      'selected_date',
      'selected_time',
      'selected_user',
      'selected_conversation',
      'selected_channel',
    ]) {
      if (key in state) return state[key];
    }
  }
  if (Array.isArray(element.initial_options)) return element.initial_options.map((o) => o.value);
  if (element.initial_option) return element.initial_option.value;
  if (typeof element.initial_date_time === 'number') return String(element.initial_date_time);
  for (const key of [
    'initial_value',
    'initial_date',
    'initial_time',
    'initial_user',
    'initial_conversation',
    'initial_channel',
  ]) {
    if (typeof element[key] === 'string') return element[key];
  }
  return null;
}

/** Gives a select in an input block its label's name (its placeholder names it elsewhere). */
function setAttributes(element, attributes) {
  element.removeAttribute('aria-label');
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) element.setAttribute(name, value);
  }
}

/** An input block in a modal: label, control, hint and the error under it. */
export function renderInput(block, blockId, env) {
  const element = block.element ?? {};
  const id = `input-${blockId}`;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const error = env.errors?.[blockId];
  const held = heldValue(element, blockId, env);
  const described =
    [block.hint ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-describedby': described, 'aria-invalid': error ? 'true' : undefined };
  let control;
  let read;
  switch (element.type) {
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input': {
      const placeholder = plainText(element.placeholder) || undefined;
      const attributes = {
        ...common,
        class: 'bk-text-input',
        placeholder,
        maxlength: element.max_length,
      };
      if (element.multiline) {
        control = h('textarea', { ...attributes, rows: 4 });
      } else {
        const type = { email_text_input: 'email', url_text_input: 'url' }[element.type] ?? 'text';
        const inputmode =
          element.type === 'number_input'
            ? element.is_decimal_allowed
              ? 'decimal'
              : 'numeric'
            : undefined;
        control = h('input', { ...attributes, type, inputmode, autocomplete: 'off' });
      }
      control.value = typeof held === 'string' ? held : '';
      read = () => control.value;
      break;
    }
    case 'static_select':
    case 'users_select':
    case 'conversations_select':
    case 'channels_select': {
      control = selectElement(element, env, false);
      setAttributes(control, common);
      if (typeof held === 'string') control.value = held;
      read = () => control.value || null;
      break;
    }
    case 'multi_static_select':
    case 'multi_users_select':
    case 'multi_conversations_select':
    case 'multi_channels_select': {
      control = selectElement({ ...element, type: element.type.replace('multi_', '') }, env, true);
      setAttributes(control, common);
      const chosen = Array.isArray(held) ? held : [];
      for (const option of control.options) option.selected = chosen.includes(option.value);
      read = () => [...control.selectedOptions].map((o) => o.value);
      break;
    }
    case 'checkboxes':
    case 'radio_buttons': {
      control = choiceGroup(
        element,
        id,
        env,
        Array.isArray(held) ? held : held === null ? [] : [held],
      );
      control.setAttribute('aria-labelledby', `${id}-label`);
      if (described) control.setAttribute('aria-describedby', described);
      const checked = () =>
        [...control.querySelectorAll('input:checked')].map((input) => input.value);
      read = element.type === 'radio_buttons' ? () => checked()[0] ?? null : checked;
      break;
    }
    case 'datepicker':
    case 'timepicker': {
      control = h('input', {
        ...common,
        class: 'bk-text-input',
        type: element.type === 'datepicker' ? 'date' : 'time',
      });
      control.value = typeof held === 'string' ? held : '';
      read = () => control.value || null;
      break;
    }
    case 'datetimepicker': {
      // Unix seconds, shown and entered in the browser's time zone, as Slack's client does.
      control = h('input', { ...common, class: 'bk-text-input', type: 'datetime-local' });
      control.value = typeof held === 'string' && held !== '' ? localDateTime(Number(held)) : '';
      read = () => {
        const ms = control.value ? new Date(control.value).getTime() : Number.NaN;
        return Number.isFinite(ms) ? String(Math.floor(ms / 1000)) : null;
      };
      break;
    }
    default:
      control = h(
        'div',
        { class: 'bk-unsupported' },
        `${String(element.type)} isn't shown in the sandbox`,
      );
      read = undefined;
  }
  if (read) env.inputs?.set(blockId, read);
  const isGroup = element.type === 'checkboxes' || element.type === 'radio_buttons';
  const label = plainText(block.label);
  return h(
    'div',
    {
      class: `block bk-input${error ? ' has-error' : ''}`,
      dataset: { blockId, blockType: 'input' },
    },
    h(
      isGroup ? 'div' : 'label',
      { class: 'bk-input-label', id: `${id}-label`, for: isGroup ? undefined : id },
      label,
      block.optional && h('span', { class: 'optional' }, ' (optional)'),
    ),
    control,
    block.hint && h('div', { class: 'bk-hint', id: hintId }, plainText(block.hint)),
    error &&
      h(
        'div',
        { class: 'bk-input-error', id: errorId, role: 'alert', 'data-testid': 'input-error' },
        decodeEntities(error),
      ),
  );
}

/** `2026-11-23T22:00` in the browser's time zone, what a datetime-local input holds. */
function localDateTime(seconds) {
  const date = new Date(seconds * 1000);
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
