import { h, replaceChildren } from './dom.js';

/** The Web API calls the app made, newest first, each with its arguments (as text). */
export function renderCalls(list, calls) {
  replaceChildren(
    list,
    calls
      .slice()
      .reverse()
      .map((call) =>
        h(
          'li',
          { class: `call ${call.ok ? 'ok' : 'failed'}` },
          h(
            'details',
            {},
            h(
              'summary',
              {},
              h('span', { class: 'call-method' }, call.method),
              h(
                'span',
                { class: 'call-result' },
                call.ok ? 'ok' : (call.error ?? `HTTP ${call.status}`),
              ),
              h('time', { class: 'call-time' }, new Date(call.atMs).toLocaleTimeString()),
            ),
            h('pre', { class: 'call-args' }, JSON.stringify(call.args, null, 2)),
          ),
        ),
      ),
  );
}
