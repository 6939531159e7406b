import { renderBlocks } from './blocks.js';
import { h } from './dom.js';

/**
 * The app's Home tab for the current person: the view it last published with `views.publish`,
 * its buttons sending `block_actions` from a `home` view, as Slack's client does.
 *
 * @typedef {{
 *   context: import('./mrkdwn.js').MrkdwnContext,
 *   onAction: (viewId: string, request: import('./blocks.js').ActionRequest) => Promise<void>,
 * }} HomeEnv
 */

/** @param {any} home the published view, or null @param {HomeEnv} env */
export function renderHome(home, env) {
  if (!home) {
    return h(
      'div',
      { class: 'empty-conversation', 'data-testid': 'app-home' },
      h('div', { class: 'empty-title' }, 'The app has not published a Home for you yet'),
      h(
        'div',
        { class: 'empty-hint' },
        'It does when you open it, and when something waits for you.',
      ),
    );
  }
  return h(
    'div',
    { class: 'app-home', 'data-testid': 'app-home', dataset: { viewId: String(home.id) } },
    renderBlocks(Array.isArray(home.blocks) ? home.blocks : [], {
      context: env.context,
      surface: 'modal',
      onAction: (request) => env.onAction(String(home.id), request),
      values: home.state?.values ?? {},
    }),
  );
}
