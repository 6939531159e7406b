import { h } from './dom.js';

/**
 * A short-lived note at the bottom of the page.
 * @param {HTMLElement} container
 * @param {string} text
 * @param {'warning' | 'error'} kind
 */
export function showToast(container, text, kind) {
  const element = h(
    'div',
    { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    text,
  );
  container.append(element);
  setTimeout(() => element.classList.add('leaving'), 5500);
  setTimeout(() => element.remove(), 6000);
}
