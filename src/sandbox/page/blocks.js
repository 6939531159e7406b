import { askConfirm } from './confirm.js';
import { h } from './dom.js';
import { withEmoji } from './emoji.js';
import { decodeEntities, plainText, renderMrkdwn, renderTextObject } from './mrkdwn.js';

/**
 * Block Kit blocks rendered like Slack renders them, in messages and modals.
 *
 * @typedef {{ actionId: string, blockId: string, value?: string | string[] }} ActionRequest
 * @typedef {{
 *   context: import('./mrkdwn.js').MrkdwnContext,
 *   surface: 'message' | 'modal',
 *   onAction: (request: ActionRequest) => Promise<void>,
 *   values?: Record<string, Record<string, any>>,
 *   errors?: Record<string, string>,
 *   inputs?: Map<string, () => string | string[] | null>,
 * }} BlockEnv
 */

/** @param {any[]} blocks @param {BlockEnv} env */
export function renderBlocks(blocks, env) {
  return h(
    'div',
    { class: 'blocks' },
    blocks.map((block) => renderBlock(block, env)),
  );
}

/** @param {any} block @param {BlockEnv} env */
function renderBlock(block, env) {
  const blockId = typeof block?.block_id === 'string' ? block.block_id : '';
  const wrap = (className, ...children) =>
    h(
      'div',
      { class: `block ${className}`, dataset: { blockId, blockType: String(block?.type) } },
      ...children,
    );
  switch (block?.type) {
    case 'header':
      return wrap('bk-header', h('h3', { class: 'bk-header-text' }, plainText(block.text)));
    case 'divider':
      return wrap('bk-divider', h('hr'));
    case 'section':
      return wrap(
        'bk-section',
        h(
          'div',
          { class: 'bk-section-main' },
          block.text &&
            h('div', { class: 'bk-section-text' }, renderTextObject(block.text, env.context)),
          Array.isArray(block.fields) &&
            h(
              'div',
              { class: 'bk-fields' },
              block.fields.map((field) =>
                h('div', { class: 'bk-field' }, renderTextObject(field, env.context)),
              ),
            ),
        ),
        block.accessory &&
          h('div', { class: 'bk-accessory' }, renderElement(block.accessory, blockId, env)),
      );
    case 'context':
      return wrap(
        'bk-context',
        (block.elements ?? []).map((element) =>
          element?.type === 'image'
            ? contextImage(element)
            : h('span', { class: 'bk-context-text' }, renderTextObject(element, env.context)),
        ),
      );
    case 'actions':
      return wrap(
        'bk-actions',
        (block.elements ?? []).map((element) => renderElement(element, blockId, env)),
      );
    case 'image':
      return wrap(
        'bk-image',
        block.title && h('div', { class: 'bk-image-title' }, plainText(block.title)),
        image(block.image_url, block.alt_text, 'bk-image-img'),
      );
    case 'input':
      return renderInput(block, blockId, env);
    case 'markdown':
      return wrap(
        'bk-markdown',
        renderMrkdwn(String(block.text ?? '').replace(/\*\*(.+?)\*\*/g, '*$1*'), env.context),
      );
    case 'rich_text':
      return wrap(
        'bk-rich-text',
        (block.elements ?? []).map((element) => richText(element, env)),
      );
    default:
      return wrap(
        'bk-unsupported',
        `This block type isn't shown in the sandbox: ${String(block?.type)}`,
      );
  }
}

function image(url, alt, className) {
  const src = typeof url === 'string' && /^(https?:|data:image\/)/i.test(url) ? url : undefined;
  return h('img', {
    class: className,
    src,
    alt: typeof alt === 'string' ? alt : '',
    loading: 'lazy',
  });
}

function contextImage(element) {
  return image(element.image_url, element.alt_text, 'bk-context-img');
}

/** @param {any} confirm @param {BlockEnv} env */
async function confirmed(confirm, env) {
  return confirm ? askConfirm(confirm, env.context) : true;
}

/** Runs an action with the element busy until the app acks. */
async function dispatch(element, control, request, env) {
  if (!(await confirmed(element.confirm, env))) return false;
  control.classList.add('busy');
  control.setAttribute('aria-busy', 'true');
  try {
    await env.onAction(request);
  } finally {
    control.classList.remove('busy');
    control.removeAttribute('aria-busy');
  }
  return true;
}

/** @param {any} element @param {string} blockId @param {BlockEnv} env */
function renderElement(element, blockId, env) {
  const actionId = typeof element?.action_id === 'string' ? element.action_id : '';
  switch (element?.type) {
    case 'button': {
      const style =
        element.style === 'primary' || element.style === 'danger' ? ` ${element.style}` : '';
      const button = h(
        'button',
        {
          type: 'button',
          class: `bk-button${style}`,
          'aria-label': element.accessibility_label,
          dataset: { actionId, blockId },
        },
        plainText(element.text),
      );
      button.addEventListener('click', () => {
        const href =
          typeof element.url === 'string' && /^https?:/i.test(element.url)
            ? element.url
            : undefined;
        if (href) window.open(href, '_blank', 'noopener,noreferrer');
        dispatch(element, button, { actionId, blockId, value: element.value }, env);
      });
      return button;
    }
    case 'overflow':
      return overflow(element, actionId, blockId, env);
    case 'static_select':
    case 'users_select':
    case 'conversations_select':
    case 'channels_select': {
      const select = selectElement(element, env, false);
      select.dataset.actionId = actionId;
      select.addEventListener('change', async () => {
        const ok = await dispatch(element, select, { actionId, blockId, value: select.value }, env);
        if (!ok) select.value = '';
      });
      return select;
    }
    case 'checkboxes':
    case 'radio_buttons': {
      const group = choiceGroup(element, `${blockId}-${actionId}`, env, undefined);
      group.addEventListener('change', () => {
        const checked = [...group.querySelectorAll('input:checked')].map((input) => input.value);
        const value = element.type === 'radio_buttons' ? checked[0] : checked;
        dispatch(element, group, { actionId, blockId, value }, env);
      });
      return group;
    }
    case 'image':
      return image(element.image_url, element.alt_text, 'bk-accessory-img');
    default:
      return h(
        'span',
        { class: 'bk-unsupported' },
        `${String(element?.type)} isn't shown in the sandbox`,
      );
  }
}

function overflow(element, actionId, blockId, env) {
  const wrapper = h('div', { class: 'bk-overflow' });
  const menu = h('div', {
    class: 'overflow-menu',
    role: 'menu',
    hidden: true,
    'data-testid': 'overflow-menu',
  });
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'bk-button bk-overflow-button',
      'aria-label': 'More actions',
      'aria-haspopup': 'menu',
      'aria-expanded': 'false',
      dataset: { actionId, blockId },
    },
    '⋮',
  );
  const close = () => {
    menu.hidden = true;
    toggle.setAttribute('aria-expanded', 'false');
    document.removeEventListener('click', outside, true);
  };
  const outside = (event) => {
    if (!wrapper.contains(event.target)) close();
  };
  toggle.addEventListener('click', () => {
    if (!menu.hidden) return close();
    menu.hidden = false;
    toggle.setAttribute('aria-expanded', 'true');
    document.addEventListener('click', outside, true);
  });
  for (const option of element.options ?? []) {
    menu.append(
      h(
        'button',
        {
          type: 'button',
          role: 'menuitem',
          class: 'overflow-item',
          onClick: () => {
            close();
            dispatch(element, toggle, { actionId, blockId, value: option.value }, env);
          },
        },
        plainText(option.text),
      ),
    );
  }
  wrapper.append(toggle, menu);
  return wrapper;
}

/** Options (or option groups) of a select as <option>/<optgroup> nodes. */
function optionNodes(element, env) {
  if (element.type === 'users_select') {
    return [...env.context.people.values()].map((p) =>
      h('option', { value: p.id }, `${p.realName} (@${p.name})`),
    );
  }
  if (element.type === 'conversations_select' || element.type === 'channels_select') {
    return [...env.context.channels.values()].map((c) =>
      h('option', { value: c.id }, `#${c.name}`),
    );
  }
  const option = (o) => h('option', { value: String(o?.value ?? '') }, plainText(o?.text));
  if (Array.isArray(element.option_groups)) {
    return element.option_groups.map((group) =>
      h('optgroup', { label: plainText(group.label) }, (group.options ?? []).map(option)),
    );
  }
  return (element.options ?? []).map(option);
}

function selectElement(element, env, multiple) {
  const placeholder = plainText(element.placeholder) || 'Select an item';
  const select = h(
    'select',
    { class: `bk-select${multiple ? ' multiple' : ''}`, multiple, 'aria-label': placeholder },
    !multiple && h('option', { value: '', disabled: true, selected: true }, placeholder),
    optionNodes(element, env),
  );
  if (multiple) select.size = Math.min(6, Math.max(3, select.options.length));
  return select;
}

function choiceGroup(element, name, env, selected) {
  const type = element.type === 'radio_buttons' ? 'radio' : 'checkbox';
  return h(
    'div',
    { class: `bk-choices ${type}`, role: type === 'radio' ? 'radiogroup' : 'group' },
    (element.options ?? []).map((option, index) => {
      const id = `${name}-${index}`;
      const checked = selected ? selected.includes(option.value) : false;
      return h(
        'div',
        { class: 'bk-choice' },
        h('input', { type, id, name, value: String(option.value ?? ''), checked }),
        h(
          'label',
          { for: id },
          h('span', { class: 'bk-choice-text' }, renderTextObject(option.text, env.context)),
          option.description &&
            h(
              'span',
              { class: 'bk-choice-description' },
              renderTextObject(option.description, env.context),
            ),
        ),
      );
    }),
  );
}

/** The value an input holds: from the view's state when the person entered something, else its initial value. */
function heldValue(element, blockId, env) {
  const state = env.values?.[blockId]?.[element.action_id];
  if (state) {
    if ('selected_options' in state) return (state.selected_options ?? []).map((o) => o.value);
    if ('selected_option' in state) return state.selected_option?.value ?? null;
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
function renderInput(block, blockId, env) {
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

/** rich_text, as people's messages carry it. */
function richText(element, env) {
  const inlineNodes = (elements) =>
    (elements ?? []).map((piece) => {
      let node;
      switch (piece?.type) {
        case 'text':
          node = document.createTextNode(String(piece.text ?? ''));
          break;
        case 'link': {
          const href =
            typeof piece.url === 'string' && /^(https?:|mailto:)/i.test(piece.url)
              ? piece.url
              : undefined;
          node = href
            ? h(
                'a',
                { href, target: '_blank', rel: 'noopener noreferrer' },
                String(piece.text ?? piece.url),
              )
            : document.createTextNode(String(piece.text ?? piece.url ?? ''));
          break;
        }
        case 'user':
          node = renderMrkdwn(`<@${piece.user_id}>`, env.context);
          break;
        case 'channel':
          node = renderMrkdwn(`<#${piece.channel_id}>`, env.context);
          break;
        case 'usergroup':
          node = renderMrkdwn(`<!subteam^${piece.usergroup_id}>`, env.context);
          break;
        case 'broadcast':
          node = renderMrkdwn(`<!${piece.range}>`, env.context);
          break;
        case 'emoji':
          node = document.createTextNode(withEmoji(`:${piece.name}:`));
          break;
        default:
          node = document.createTextNode('');
      }
      const style = piece?.style ?? {};
      if (style.code) node = h('code', { class: 'inline-code' }, node);
      if (style.strike) node = h('s', {}, node);
      if (style.italic) node = h('em', {}, node);
      if (style.bold) node = h('strong', {}, node);
      return node;
    });
  switch (element?.type) {
    case 'rich_text_section':
      return h('div', { class: 'rt-section' }, inlineNodes(element.elements));
    case 'rich_text_preformatted':
      return h('pre', { class: 'code-block' }, inlineNodes(element.elements));
    case 'rich_text_quote':
      return h('blockquote', { class: 'quote' }, inlineNodes(element.elements));
    case 'rich_text_list':
      return h(
        element.style === 'ordered' ? 'ol' : 'ul',
        { class: 'rt-list' },
        (element.elements ?? []).map((item) => h('li', {}, inlineNodes(item.elements))),
      );
    default:
      return h('div', {});
  }
}
