import { h } from './dom.js';
import { withEmoji } from './emoji.js';
import { renderMrkdwn } from './mrkdwn.js';

/** rich_text, as people's messages carry it. */
export function richText(element, env) {
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
