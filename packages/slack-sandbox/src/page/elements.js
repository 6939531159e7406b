import { askConfirm } from './confirm.js';
import { h } from './dom.js';
import { plainText, renderTextObject } from './mrkdwn.js';

/**
 * Block Kit's interactive elements (buttons, overflow menus, selects, checkboxes, radio buttons)
 * and images. A choice is sent to the app through `env.onAction`, after any confirm dialog, with
 * the element busy until the app acks.
 */

export function image(url, alt, className) {
  const src = typeof url === 'string' && /^(https?:|data:image\/)/i.test(url) ? url : undefined;
  return h('img', {
    class: className,
    src,
    alt: typeof alt === 'string' ? alt : '',
    loading: 'lazy',
  });
}

/** @param {any} confirm @param {import('./blocks.js').BlockEnv} env */
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

/** @param {any} element @param {string} blockId @param {import('./blocks.js').BlockEnv} env */
export function renderElement(element, blockId, env) {
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
        const checked = [...group.querySelectorAll('input:checked')]
          .filter((input) => input instanceof HTMLInputElement)
          .map((input) => input.value);
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

export function selectElement(element, env, multiple) {
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

export function choiceGroup(element, name, env, selected) {
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
