import { h } from './dom.js';
import { plainText, renderTextObject } from './mrkdwn.js';

/**
 * Block Kit's confirmation dialog (`confirm` on buttons, overflows and selects): resolves true
 * when the person confirms.
 *
 * @param {any} confirm the confirm object
 * @param {import('./mrkdwn.js').MrkdwnContext} context
 * @returns {Promise<boolean>}
 */
export function askConfirm(confirm, context) {
  return new Promise((resolve) => {
    const dialog = h('dialog', {
      class: 'confirm-dialog',
      'data-testid': 'confirm-dialog',
      'aria-labelledby': 'confirm-title',
    });
    const finish = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    const style = confirm?.style === 'danger' ? 'danger' : 'primary';
    dialog.append(
      h(
        'h2',
        { id: 'confirm-title', class: 'confirm-title' },
        plainText(confirm?.title) || 'Are you sure?',
      ),
      h('div', { class: 'confirm-text' }, renderTextObject(confirm?.text, context)),
      h(
        'div',
        { class: 'confirm-buttons' },
        h(
          'button',
          { type: 'button', class: 'bk-button', onClick: () => finish(false) },
          plainText(confirm?.deny) || 'Cancel',
        ),
        h(
          'button',
          { type: 'button', class: `bk-button ${style}`, onClick: () => finish(true) },
          plainText(confirm?.confirm) || 'Yes',
        ),
      ),
    );
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      finish(false);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
