import { renderBlocks } from './blocks.js';
import { h, replaceChildren } from './dom.js';
import { plainText } from './mrkdwn.js';

/**
 * The topmost modal of the person's view stack. It is rebuilt only when the view, its hash or
 * its errors change, so typing is never lost to a live update.
 *
 * @typedef {{ view: any, errors: Record<string, string>, notice: string | null }} OpenView
 * @typedef {{
 *   context: import('./mrkdwn.js').MrkdwnContext,
 *   onSubmit: (viewId: string, values: Record<string, string | string[] | null>) => Promise<void>,
 *   onClose: (viewId: string) => Promise<void>,
 *   onAction: (viewId: string, request: import('./blocks.js').ActionRequest) => Promise<void>,
 * }} ModalEnv
 */

/** @param {HTMLElement} layer @param {OpenView[]} views @param {ModalEnv} env */
export function renderModal(layer, views, env) {
  const top = views.at(-1);
  const key = top
    ? JSON.stringify([top.view.id, top.view.hash, top.errors, top.notice, views.length])
    : '';
  if (layer.dataset.key === key) return;
  layer.dataset.key = key;
  if (!top) {
    layer.hidden = true;
    replaceChildren(layer);
    return;
  }
  const view = top.view;
  const inputs = new Map();
  const titleId = `modal-title-${view.id}`;
  const blocks = renderBlocks(Array.isArray(view.blocks) ? view.blocks : [], {
    context: env.context,
    surface: 'modal',
    onAction: (request) => env.onAction(view.id, request),
    values: view.state?.values ?? {},
    errors: top.errors,
    inputs,
  });
  const submitButton =
    view.submit &&
    h(
      'button',
      { type: 'submit', class: 'bk-button primary', 'data-testid': 'modal-submit' },
      plainText(view.submit),
    );
  const close = () => env.onClose(view.id);
  const form = h(
    'form',
    {
      class: 'modal',
      role: 'dialog',
      'aria-modal': 'true',
      'aria-labelledby': titleId,
      'data-testid': 'modal',
      dataset: { viewId: view.id, callbackId: String(view.callback_id ?? '') },
      novalidate: true,
    },
    h(
      'header',
      { class: 'modal-header' },
      views.length > 1 && h('span', { class: 'modal-back', 'aria-hidden': 'true' }, '‹'),
      h('h2', { class: 'modal-title', id: titleId }, plainText(view.title)),
      h('button', { type: 'button', class: 'modal-x', 'aria-label': 'Close', onClick: close }, '×'),
    ),
    top.notice &&
      h('div', { class: 'modal-notice', role: 'alert', 'data-testid': 'modal-notice' }, top.notice),
    h('div', { class: 'modal-body' }, blocks),
    h(
      'footer',
      { class: 'modal-footer' },
      h(
        'button',
        { type: 'button', class: 'bk-button', 'data-testid': 'modal-close', onClick: close },
        plainText(view.close) || 'Cancel',
      ),
      submitButton,
    ),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!submitButton) return;
    /** @type {Record<string, string | string[]>} */
    const values = {};
    for (const [blockId, read] of inputs) values[blockId] = read();
    submitButton.disabled = true;
    submitButton.classList.add('busy');
    try {
      await env.onSubmit(view.id, values);
    } finally {
      submitButton.disabled = false;
      submitButton.classList.remove('busy');
    }
  });
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      close();
    }
  });
  layer.hidden = false;
  replaceChildren(layer, h('div', { class: 'modal-backdrop' }), form);
  const first = form.querySelector('input, textarea, select');
  if (first instanceof HTMLElement) first.focus();
}
