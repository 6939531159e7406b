import { api, subscribe } from './api.js';
import { renderCalls as renderCallList } from './calls-pane.js';
import { wireComposer } from './composer.js';
import { h, initials, replaceChildren } from './dom.js';
import { renderHome } from './home.js';
import { authorResolver, renderMessageItems } from './messages.js';
import { renderModal } from './modal.js';
import { renderSuggestions } from './suggestions.js';
import { showToast } from './toasts.js';

/**
 * The sandbox's Slack client: one person at a time (the "Acting as" switch), their channels and
 * app DM, threads, ephemerals and modals, kept live by Server-Sent Events.
 */

/**
 * The page's element with this id, of the kind the code expects.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T }} kind
 * @returns {T}
 */
function $(id, kind) {
  const element = document.getElementById(id);
  if (!(element instanceof kind)) throw new Error(`the page has no #${id} of the expected kind`);
  return element;
}

const ui = {
  personSwitch: $('person-switch', HTMLSelectElement),
  channelList: $('channel-list', HTMLElement),
  dmList: $('dm-list', HTMLElement),
  title: $('conversation-title', HTMLElement),
  topic: $('conversation-topic', HTMLElement),
  members: $('conversation-members', HTMLElement),
  messages: $('message-list', HTMLElement),
  composer: $('composer', HTMLFormElement),
  composerInput: $('composer-input', HTMLTextAreaElement),
  suggestions: $('suggestions', HTMLElement),
  threadPane: $('thread-pane', HTMLElement),
  threadChannel: $('thread-channel', HTMLElement),
  threadMessages: $('thread-messages', HTMLElement),
  threadComposer: $('thread-composer', HTMLFormElement),
  threadInput: $('thread-input', HTMLTextAreaElement),
  modalLayer: $('modal-layer', HTMLElement),
  toasts: $('toasts', HTMLElement),
  appStatus: $('app-status', HTMLElement),
  meAvatar: $('me-avatar', HTMLElement),
  callsToggle: $('calls-toggle', HTMLElement),
  callsPane: $('calls-pane', HTMLElement),
  callsList: $('calls-list', HTMLElement),
};

const state = {
  workspace: /** @type {any} */ (undefined),
  person: '',
  conversation: '',
  thread: /** @type {string | null} */ (null),
  snapshot: /** @type {any} */ (undefined),
  /** Newest ts seen per conversation, per person: for unread marks. */
  seen: new Map(),
  shownNotices: new Set(),
  callsOpen: false,
};

/** The conversation id the page uses for the app's Home tab. */
const HOME = 'home';

let author = (id) => ({ name: id, color: '#616061', avatar: '?' });
let mrkdwnContext;

async function start() {
  state.workspace = await api.workspace();
  const ws = state.workspace;
  author = authorResolver(ws);
  document.title = `${ws.team.name} · Slack sandbox`;
  $('workspace-name', HTMLElement).textContent = ws.team.name;
  const params = new URLSearchParams(location.search);
  const wanted = params.get('as') ?? localStorage.getItem('sandbox.person') ?? ws.people[0].id;
  state.person = (ws.people.find((p) => p.id === wanted || p.name === wanted) ?? ws.people[0]).id;
  for (const person of ws.people) {
    ui.personSwitch.append(
      h('option', { value: person.id }, `${person.realName} · ${person.title}`),
    );
  }
  ui.personSwitch.value = state.person;
  ui.personSwitch.addEventListener('change', () => switchPerson(ui.personSwitch.value));
  const [target, ts] = location.hash.slice(1).split('/');
  state.conversation = target || ws.channels.find((c) => c.name === 'ops')?.id || ws.channels[0].id;
  if (ts) state.thread = ts;

  wireComposer(
    ui.composer,
    ui.composerInput,
    sendFrom(() => undefined),
  );
  wireComposer(
    ui.threadComposer,
    ui.threadInput,
    sendFrom(() => state.thread ?? undefined),
  );
  $('thread-close', HTMLElement).addEventListener('click', () => openThread(null));
  ui.callsToggle.addEventListener('click', () => toggleCalls(!state.callsOpen));
  $('calls-close', HTMLElement).addEventListener('click', () => toggleCalls(false));
  window.addEventListener('hashchange', () => {
    const [conversation, thread] = location.hash.slice(1).split('/');
    if (conversation && conversation !== state.conversation)
      openConversation(conversation, thread ?? null);
  });

  subscribe(() => refresh());
  await refresh();
}

function context() {
  const ws = state.workspace;
  return {
    people: new Map([
      ...ws.people.map((p) => [p.id, p]),
      [ws.bot.userId, { id: ws.bot.userId, name: ws.bot.name, realName: ws.bot.realName }],
    ]),
    groups: new Map(ws.usergroups.map((g) => [g.id, g])),
    channels: new Map(ws.channels.map((c) => [c.id, c])),
    me: state.person,
    onChannel: (id) => openConversation(id, null),
  };
}

let refreshing = false;
let again = false;

/** Fetches what the current person sees and re-renders; coalesces bursts of changes. */
async function refresh() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  try {
    do {
      again = false;
      const person = state.person;
      const snapshot = await api.state(person);
      if (person !== state.person) again = true;
      else {
        state.snapshot = snapshot;
        render();
      }
    } while (again);
  } catch (error) {
    toast(
      `Lost touch with the sandbox: ${error instanceof Error ? error.message : String(error)}`,
      'error',
    );
  } finally {
    refreshing = false;
  }
}

function render() {
  mrkdwnContext = context();
  const snapshot = state.snapshot;
  if (state.conversation !== HOME && !snapshot.conversations[state.conversation]) {
    state.conversation = Object.keys(snapshot.conversations)[0] ?? state.conversation;
    state.thread = null;
  }
  renderTopbar();
  renderSidebar();
  renderConversation();
  renderThread();
  renderModal(ui.modalLayer, snapshot.views, {
    context: mrkdwnContext,
    onSubmit: submitView,
    onClose: closeView,
    onAction: (viewId, request) => act({ viewId, ...request }),
  });
  renderNotices();
  if (state.callsOpen) renderCalls();
}

function me() {
  return state.workspace.people.find((p) => p.id === state.person);
}

function renderTopbar() {
  const person = me();
  ui.meAvatar.textContent = initials(person.realName);
  ui.meAvatar.style.setProperty('--avatar', person.color);
  ui.meAvatar.title = `${person.realName} (@${person.name})`;
  const connected = state.snapshot.appConnected;
  ui.appStatus.className = `app-status ${connected ? 'connected' : 'disconnected'}`;
  ui.appStatus.textContent = connected ? 'App connected' : 'No app connected';
  ui.appStatus.title = connected
    ? `Interactions go to ${state.workspace.appEventsUrl ?? 'the app'}`
    : 'Slash commands and clicks have nowhere to go: start the app, or set its events URL';
}

function latestTs(conversationId) {
  const messages = state.snapshot.conversations[conversationId]?.messages ?? [];
  return messages.at(-1)?.ts;
}

function seenKey(conversationId) {
  return `${state.person}:${conversationId}`;
}

function renderSidebar() {
  const ws = state.workspace;
  const item = (id, label, prefix, testId) => {
    const active = id === state.conversation;
    if (active) state.seen.set(seenKey(id), latestTs(id));
    const latest = latestTs(id);
    const unread = !active && latest !== undefined && latest !== state.seen.get(seenKey(id));
    return h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          class: `sidebar-item${active ? ' active' : ''}${unread ? ' unread' : ''}`,
          'aria-current': active ? 'page' : undefined,
          'data-testid': testId,
          dataset: { conversation: id },
          onClick: () => openConversation(id, null),
        },
        h('span', { class: 'sidebar-prefix', 'aria-hidden': 'true' }, prefix),
        h('span', { class: 'sidebar-label' }, label),
      ),
    );
  };
  replaceChildren(
    ui.channelList,
    ws.channels
      .filter((c) => state.snapshot.conversations[c.id])
      .map((c) => item(c.id, c.name, '#', `channel-${c.name}`)),
  );
  const dm = me().dmId;
  replaceChildren(
    ui.dmList,
    item(HOME, `${ws.bot.realName} · Home`, '⌂', 'app-home-tab'),
    state.snapshot.conversations[dm] ? item(dm, ws.bot.realName, '✓', 'dm-app') : [],
  );
}

function conversationName(id) {
  const channel = state.workspace.channels.find((c) => c.id === id);
  return channel ? `#${channel.name}` : state.workspace.bot.realName;
}

function listEnv(inThread) {
  const conversation = state.snapshot.conversations[state.conversation];
  return {
    context: mrkdwnContext,
    author,
    notices: state.snapshot.notices,
    threads: conversation?.threads ?? {},
    inThread,
    onAction: (item, request) => {
      const ts = item.kind === 'message' ? item.message.ts : item.ephemeral.ts;
      return act({ channel: state.conversation, messageTs: ts, ...request });
    },
    onOpenThread: (ts) => openThread(ts),
    onDismiss: (ts) => api.dismiss({ user: state.person, ts }).then(refresh, reportError),
  };
}

function ephemeralsHere(threadTs) {
  return state.snapshot.ephemerals.filter(
    (e) => e.channel === state.conversation && (e.thread_ts ?? null) === threadTs,
  );
}

function byTs(a, b) {
  const ts = (item) => Number(item.kind === 'message' ? item.message.ts : item.ephemeral.ts);
  return ts(a) - ts(b);
}

function renderConversation() {
  const id = state.conversation;
  ui.composer.hidden = id === HOME;
  const suggestions = state.workspace.suggestions ?? [];
  ui.suggestions.hidden = id === HOME || suggestions.length === 0;
  if (!ui.suggestions.hidden && ui.suggestions.childElementCount === 0) {
    replaceChildren(ui.suggestions, renderSuggestions(suggestions, pickSuggestion));
  }
  if (id === HOME) {
    ui.title.textContent = `${state.workspace.bot.realName} · Home`;
    ui.topic.textContent = 'What waits for you, your requests, recent decisions';
    ui.members.textContent = '';
    replaceChildren(
      ui.messages,
      renderHome(state.snapshot.home, {
        context: mrkdwnContext,
        onAction: (viewId, request) => act({ viewId, ...request }),
      }),
    );
    return;
  }
  const channel = state.workspace.channels.find((c) => c.id === id);
  ui.title.textContent = conversationName(id);
  ui.topic.textContent = channel?.topic ?? 'Your messages with the app';
  ui.members.textContent = channel ? `${channel.members.length + 1} members` : '';
  ui.composerInput.placeholder = `Message ${conversationName(id)} — try /agent`;
  const conversation = state.snapshot.conversations[id] ?? { messages: [] };
  const items = [
    ...conversation.messages.map((message) => ({ kind: 'message', message })),
    ...ephemeralsHere(null).map((ephemeral) => ({ kind: 'ephemeral', ephemeral })),
  ].sort(byTs);
  const list = ui.messages;
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const scrollTop = list.scrollTop;
  if (items.length === 0) {
    replaceChildren(
      list,
      h(
        'div',
        { class: 'empty-conversation' },
        h('div', { class: 'empty-title' }, `This is the very beginning of ${conversationName(id)}`),
        h(
          'div',
          { class: 'empty-hint' },
          'Type /agent followed by what the agent should do, and the app takes it from there.',
        ),
      ),
    );
  } else {
    replaceChildren(list, renderMessageItems(items, listEnv(false)));
  }
  list.scrollTop = atBottom ? list.scrollHeight : scrollTop;
}

function renderThread() {
  const ts = state.thread;
  const conversation = state.snapshot.conversations[state.conversation];
  const root = conversation?.messages.find((m) => m.ts === ts);
  if (!ts || !root) {
    ui.threadPane.hidden = true;
    return;
  }
  ui.threadPane.hidden = false;
  ui.threadChannel.textContent = conversationName(state.conversation);
  const replies = conversation.threads[ts] ?? [];
  const items = [
    ...replies.map((message) => ({ kind: 'message', message })),
    ...ephemeralsHere(ts).map((ephemeral) => ({ kind: 'ephemeral', ephemeral })),
  ].sort(byTs);
  const env = listEnv(true);
  const count = replies.length;
  /** @type {import('./messages.js').Item} */
  const parent = { kind: 'message', message: root };
  replaceChildren(
    ui.threadMessages,
    renderMessageItems([parent], env),
    h(
      'div',
      { class: 'reply-divider' },
      h('span', {}, `${count} ${count === 1 ? 'reply' : 'replies'}`),
    ),
    renderMessageItems(items, env, parent),
  );
  ui.threadMessages.scrollTop = ui.threadMessages.scrollHeight;
}

function renderNotices() {
  for (const notice of state.snapshot.notices) {
    if (state.shownNotices.has(notice.id)) continue;
    state.shownNotices.add(notice.id);
    // Notices from before this page was opened are history, not news.
    if (Date.now() - notice.atMs < 10_000) toast(notice.text, 'warning');
  }
}

async function renderCalls() {
  const { calls } = await api.calls();
  renderCallList(ui.callsList, calls);
}

function toggleCalls(open) {
  state.callsOpen = open;
  ui.callsPane.hidden = !open;
  ui.callsToggle.setAttribute('aria-pressed', String(open));
  if (open) renderCalls().catch(reportError);
}

function switchPerson(id) {
  state.person = id;
  state.thread = null;
  localStorage.setItem('sandbox.person', id);
  const url = new URL(location.href);
  url.searchParams.set('as', id);
  history.replaceState(null, '', url);
  refresh();
}

/** A suggested prompt goes into the message box of its channel, ready to send. */
function pickSuggestion(prompt) {
  if (prompt.channel && prompt.channel !== state.conversation)
    openConversation(prompt.channel, null);
  ui.composerInput.value = prompt.text;
  ui.composerInput.dispatchEvent(new Event('input'));
  ui.composerInput.focus();
}

function openConversation(id, thread) {
  if (id === HOME && state.conversation !== HOME) {
    api.homeOpened({ user: state.person }).catch((error) => toast(String(error)));
  }
  state.conversation = id;
  state.thread = thread;
  history.replaceState(
    null,
    '',
    `${location.pathname}${location.search}#${id}${thread ? `/${thread}` : ''}`,
  );
  if (state.snapshot) render();
}

function openThread(ts) {
  state.thread = ts;
  history.replaceState(
    null,
    '',
    `${location.pathname}${location.search}#${state.conversation}${ts ? `/${ts}` : ''}`,
  );
  renderThread();
  if (ts) ui.threadInput.focus();
}

/** Reports what came of an interaction the way Slack's client would: quietly when the app acked. */
function reportResult(result) {
  if (result.answered && result.status === 200) return;
  if (result.answered) toast(`The app answered HTTP ${result.status}`, 'error');
  else if (!/^the Slack client shows errors/.test(result.reason)) toast(result.reason, 'warning');
}

function reportError(error) {
  toast(error instanceof Error ? error.message : String(error), 'error');
}

async function act(request) {
  try {
    reportResult(await api.click({ user: state.person, ...request }));
  } catch (error) {
    reportError(error);
  }
}

async function submitView(viewId, values) {
  try {
    reportResult(await api.submit({ user: state.person, viewId, values }));
  } catch (error) {
    reportError(error);
  }
}

async function closeView(viewId) {
  try {
    const result = await api.close({ user: state.person, viewId });
    if (result.answered) reportResult(result);
  } catch (error) {
    reportError(error);
  }
  refresh();
}

/** What a composer sends: `/command text` as a slash command, anything else as a message. */
function sendFrom(threadTs) {
  return async (text) => {
    try {
      const command = /^(\/\S+)\s*([\s\S]*)$/.exec(text);
      if (command) {
        reportResult(
          await api.command({
            user: state.person,
            channel: state.conversation,
            command: command[1],
            text: command[2],
          }),
        );
      } else {
        await api.message({
          user: state.person,
          channel: state.conversation,
          text,
          threadTs: threadTs(),
        });
      }
    } catch (error) {
      reportError(error);
    }
  };
}

function toast(text, kind) {
  showToast(ui.toasts, text, kind);
}

start().catch(reportError);
