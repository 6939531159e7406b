import { h } from './dom.js';
import { image, renderElement } from './elements.js';
import { renderInput } from './inputs.js';
import { plainText, renderMrkdwn, renderTextObject } from './mrkdwn.js';
import { richText } from './rich-text.js';

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

function contextImage(element) {
  return image(element.image_url, element.alt_text, 'bk-context-img');
}
