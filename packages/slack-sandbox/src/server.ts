import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiCall } from './api-calls.js';
import type { ChannelRate } from './channel-rates.js';
import type { SandboxEphemeral, SandboxMessage } from './conversations.js';
import { EventDeliveries, type EventDelivery } from './events/event-delivery.js';
import { SocketModeServer } from './events/socket-mode.js';
import { sendJson, sendText } from './http/bodies.js';
import { LiveUpdates } from './http/live-updates.js';
import { handlePageApi } from './http/page-api.js';
import { pageDirectory, servePageFile } from './http/page-files.js';
import { handleResponseUrl } from './http/response-url-route.js';
import { InteractionDriver } from './interactions/driver.js';
import type {
  ClickInput,
  CloseViewInput,
  InteractionResult,
  PostAsPersonInput,
  SlashCommandInput,
  SubmitViewInput,
} from './interactions/inputs.js';
import { type Log, silentLog } from './log.js';
import type { SandboxView } from './modals.js';
import { type Notice, SandboxState } from './state.js';
import type { SuggestedPrompt } from './suggestions.js';
import { handleWebApi } from './web-api/handler.js';
import { findConversation, findPerson, findUserGroup } from './workspace.js';

export interface SandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the sandbox's control routes are unauthenticated, keep it on loopback. */
  host?: string;
  signingSecret: string;
  botToken: string;
  /**
   * The app-level token (`xapp-…`) that `apps.connections.open` accepts. Absent: Socket Mode is
   * off (`apps.connections.open` answers `invalid_auth`).
   */
  appToken?: string;
  /** Where interactions and slash commands are POSTed, e.g. `http://127.0.0.1:3000/slack/events`. */
  appEventsUrl?: string;
  /** How long a trigger id stays usable. Slack: 3 s. */
  triggerTtlMs?: number;
  /** How long the sandbox waits for the app's ack. Slack: 3 s. */
  ackTimeoutMs?: number;
  /**
   * The slash command's `should_escape`. Default false, as Slack's default and this app's
   * manifest.yml: mentions reach the app as typed (`@bob`), not as `<@U…|bob>`.
   */
  escapeCommandText?: boolean;
  /**
   * Per-channel rate limits by method, e.g. `SLACK_CHANNEL_RATES` (Slack's one message a second
   * per channel, with a small burst): a call over its channel's rate answers HTTP 429 with
   * `Retry-After`. Default: none, so that tests posting many messages never wait.
   */
  channelRates?: Readonly<Record<string, ChannelRate>>;
  /**
   * Delays before an unacknowledged Events API delivery is retried (Slack: at once, 1 min,
   * 5 min). Default [0, 500, 2000].
   */
  eventRetryDelaysMs?: readonly number[];
  /**
   * Prompts the page offers above its message box, for the app it stands in front of (a click
   * fills the box, in the prompt's channel). Default: none.
   */
  suggestions?: readonly SuggestedPrompt[];
  log?: Log;
}

/** The environment an app needs to talk to this sandbox instead of Slack. */
export interface SandboxEnvironment {
  SLACK_API_URL: string;
  SLACK_BOT_TOKEN: string;
  SLACK_SIGNING_SECRET: string;
  /** Present when the sandbox was given an app-level token: the app may use Socket Mode. */
  SLACK_APP_TOKEN?: string;
}

export interface WaitForOptions {
  /** Default 5000. */
  timeoutMs?: number;
}

export interface Sandbox {
  /** The page, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** `SLACK_API_URL` for the app: `<url>/api/`. */
  readonly apiUrl: string;
  readonly port: number;
  env(): SandboxEnvironment;
  appEventsUrl(): string | undefined;
  setAppEventsUrl(url: string | undefined): void;
  /** Whether an app is connected over Socket Mode (it then gets everything over the socket). */
  socketConnected(): boolean;
  /** Sends `disconnect` to Socket Mode connections, as Slack does before it recycles one. */
  disconnectSocket(reason?: string): void;

  /** Types `/command text` as a person; the ack body becomes an ephemeral (or in-channel) reply. */
  slashCommand(input: SlashCommandInput): Promise<InteractionResult>;
  /** Clicks a button, or picks from an overflow, select, radio group or checkboxes, in a message or modal. */
  clickButton(input: ClickInput): Promise<InteractionResult>;
  /** Submits a person's topmost modal; `response_action` in the ack is honoured. */
  submitView(input: SubmitViewInput): Promise<InteractionResult>;
  /** Closes a person's topmost modal; the app hears of it only with `notify_on_close`. */
  closeView(input: CloseViewInput): Promise<InteractionResult>;
  /** Posts a plain message as a person; the app gets a `message` event (and `app_mention`). */
  postAsPerson(input: PostAsPersonInput): SandboxMessage;
  /** A person opens the app's Home tab: the app gets `app_home_opened`. */
  openAppHome(user: string): void;
  /** Events API events sent to the app (of one type, e.g. `message`, `app_mention`), oldest first. */
  events(type?: string): EventDelivery[];
  /** Sends a delivered event again as Slack's next retry (a duplicate the app must ignore). */
  redeliverEvent(eventId: string, reason?: string): Promise<EventDelivery>;

  /** Top-level messages of a channel (by id or name), oldest first; replies are in `replies`. */
  messages(channel: string): SandboxMessage[];
  message(channel: string, ts: string): SandboxMessage | undefined;
  replies(channel: string, threadTs: string): SandboxMessage[];
  /** Ephemeral messages a person (id or handle) can see. */
  ephemerals(user: string): SandboxEphemeral[];
  /** A person's open modals, bottom to top. */
  views(user: string): SandboxView[];
  /** A person's App Home tab as the app last published it (`views.publish`), if it did. */
  home(user: string): SandboxView | undefined;
  /** Web API calls (and `response_url` posts, as method `response_url`), oldest first. */
  calls(method?: string): ApiCall[];
  notices(user?: string): Notice[];

  /** The next `calls` calls of `method` answer HTTP 429 with `Retry-After: retryAfterSec`. */
  rateLimit(method: string, calls: number, retryAfterSec?: number): void;
  /**
   * Changes a user group's members (group by id or handle, people by id or handle), as a
   * workspace admin would: `usergroups.*` answer with them from then on, until `reset`.
   */
  setGroupMembers(group: string, people: readonly string[]): void;
  /**
   * Resolves with the probe's first truthy result, probing now, after every change and every
   * `POLL_MS` (for a probe that also looks at something outside the sandbox); rejects after
   * `timeoutMs`.
   */
  waitFor<T>(
    probe: (sandbox: Sandbox) => T | undefined | null | false,
    options?: WaitForOptions,
  ): Promise<T>;
  /** Forgets all messages, modals, calls and notices. */
  reset(): void;
  /** Closes the server and every connection, including live-update streams. */
  stop(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  if (options.botToken === '' || options.signingSecret === '') {
    throw new TypeError('startSandbox: botToken and signingSecret must not be empty');
  }
  const log = options.log ?? silentLog;
  const state = new SandboxState({
    triggerTtlMs: options.triggerTtlMs ?? 3000,
    ...(options.channelRates === undefined ? {} : { channelRates: options.channelRates }),
  });
  let appEventsUrl = options.appEventsUrl;
  let baseUrl = '';
  const socket = new SocketModeServer({
    baseUrl: () => baseUrl,
    ackTimeoutMs: options.ackTimeoutMs ?? 3000,
    onChange: () => state.changed(),
    log: log.child('socket-mode'),
  });
  const driver = new InteractionDriver({
    state,
    signingSecret: options.signingSecret,
    baseUrl: () => baseUrl,
    appEventsUrl: () => appEventsUrl,
    socket,
    ackTimeoutMs: options.ackTimeoutMs ?? 3000,
    escapeCommandText: options.escapeCommandText ?? false,
    log,
  });
  const events = new EventDeliveries({
    signingSecret: options.signingSecret,
    appEventsUrl: () => appEventsUrl,
    ackTimeoutMs: options.ackTimeoutMs ?? 3000,
    retryDelaysMs: options.eventRetryDelaysMs ?? [0, 500, 2000],
    nowMs: state.nowMs,
    socket,
    onChange: () => state.changed(),
    log: log.child('events'),
  });
  state.events.subscribe((event) => {
    events.deliver(event).catch((error: unknown) => {
      log.error('event delivery failed', { error: String(error) });
    });
  });
  const live = new LiveUpdates(state);
  const pageDir = pageDirectory();
  const setAppEventsUrl = (url: string | undefined) => {
    appEventsUrl = url;
    state.changed();
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
    const api = /^\/api\/([A-Za-z0-9._-]+)$/.exec(path);
    if (api?.[1])
      return handleWebApi(
        req,
        res,
        api[1],
        { state, baseUrl },
        {
          botToken: options.botToken,
          ...(options.appToken === undefined ? {} : { appToken: options.appToken }),
          openSocketUrl: () => socket.openUrl(),
          log,
        },
      );
    const response = /^\/response\/([A-Za-z0-9_-]+)$/.exec(path);
    if (response?.[1]) return handleResponseUrl(req, res, response[1], state);
    const control = /^\/sandbox\/([a-z-]+)$/.exec(path);
    if (control?.[1]) {
      return handlePageApi(req, res, control[1], {
        state,
        driver,
        live,
        appEventsUrl: () => appEventsUrl,
        setAppEventsUrl,
        suggestions: options.suggestions ?? [],
      });
    }
    const permalink = /^\/archives\/([A-Z0-9]+)\/p(\d{10})(\d{6})$/.exec(path);
    if (permalink) {
      res.writeHead(302, { location: `/#${permalink[1]}/${permalink[2]}.${permalink[3]}` });
      return void res.end();
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendText(res, 405, 'method_not_allowed');
    return servePageFile(res, pageDir, path === '/' ? 'index.html' : path.slice(1));
  };

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      log.error('sandbox request failed', { path: req.url, error: String(error) });
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: 'internal_error' });
      else res.end();
    });
  });
  server.on('upgrade', (req, duplex, head) => {
    if (!socket.handleUpgrade(req, duplex, head)) duplex.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('the sandbox did not get a TCP port');
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${hostForUrl}:${address.port}`;
  log.info('Slack sandbox listening', { url: baseUrl });

  const person = (user: string) => findPerson(user)?.id ?? user;
  const channel = (name: string) => findConversation(name)?.id ?? name;

  const sandbox: Sandbox = {
    url: baseUrl,
    apiUrl: `${baseUrl}/api/`,
    port: address.port,
    env: () => ({
      SLACK_API_URL: `${baseUrl}/api/`,
      SLACK_BOT_TOKEN: options.botToken,
      SLACK_SIGNING_SECRET: options.signingSecret,
      ...(options.appToken === undefined ? {} : { SLACK_APP_TOKEN: options.appToken }),
    }),
    appEventsUrl: () => appEventsUrl,
    setAppEventsUrl,
    socketConnected: () => socket.connected(),
    disconnectSocket: (reason) => socket.disconnectAll(reason),
    slashCommand: (input) => driver.slashCommand(input),
    clickButton: (input) => driver.clickButton(input),
    submitView: (input) => driver.submitView(input),
    closeView: (input) => driver.closeView(input),
    openAppHome: (user) => {
      const opened = driver.openAppHome(user);
      if (!opened.ok) throw new Error(`openAppHome: ${opened.reason}`);
    },
    postAsPerson: (input) => {
      const posted = driver.postAsPerson(input);
      if (!posted.ok) throw new Error(`postAsPerson: ${posted.reason}`);
      return posted.message;
    },
    events: (type) =>
      structuredClone(
        events
          .all()
          .filter((e) => type === undefined || e.type === type || e.type.startsWith(`${type}/`)),
      ),
    redeliverEvent: async (eventId, reason) =>
      structuredClone(await events.redeliver(eventId, reason)),
    messages: (name) => structuredClone(state.conversations.roots(channel(name))),
    message: (name, ts) => {
      const found = state.conversations.find(channel(name), ts);
      return found && structuredClone(found);
    },
    replies: (name, threadTs) =>
      structuredClone(state.conversations.replies(channel(name), threadTs)),
    ephemerals: (user) => structuredClone(state.conversations.ephemeralsFor(person(user))),
    views: (user) => structuredClone(state.modals.stack(person(user))),
    home: (user) => structuredClone(state.homes.of(person(user))),
    calls: (method) =>
      structuredClone(state.calls.filter((c) => method === undefined || c.method === method)),
    notices: (user) =>
      structuredClone(state.notices.filter((n) => user === undefined || n.user === person(user))),
    rateLimit: (method, calls, retryAfterSec = 1) =>
      state.rateLimits.limit(method, calls, retryAfterSec),
    setGroupMembers: (group, people) => {
      const found = findUserGroup(group);
      if (found === undefined) throw new Error(`setGroupMembers: no user group ${group}`);
      const members = people.map((name) => {
        const member = findPerson(name);
        if (member === undefined) throw new Error(`setGroupMembers: no person ${name}`);
        return member.id;
      });
      state.setGroupMembers(found, members);
    },
    waitFor: (probe, waitOptions) =>
      waitFor(state, () => probe(sandbox), waitOptions?.timeoutMs ?? 5000),
    reset: () => {
      state.reset();
      events.clear();
      state.changed();
    },
    stop: async () => {
      live.close();
      socket.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return sandbox;
}

/** How often `waitFor` probes again without a change in the sandbox. */
const POLL_MS = 50;

function waitFor<T>(
  state: SandboxState,
  probe: () => T | undefined | null | false,
  timeoutMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let unsubscribe = () => {};
    let poll: NodeJS.Timeout | undefined;
    const stop = () => {
      clearTimeout(timer);
      clearInterval(poll);
      unsubscribe();
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`sandbox.waitFor: nothing matched within ${timeoutMs} ms`));
    }, timeoutMs);
    const check = (): boolean => {
      let value: T | undefined | null | false;
      try {
        value = probe();
      } catch (error) {
        stop();
        reject(error);
        return true;
      }
      if (value === undefined || value === null || value === false) return false;
      stop();
      resolve(value);
      return true;
    };
    if (check()) return;
    unsubscribe = state.subscribe(() => {
      check();
    });
    poll = setInterval(check, POLL_MS);
  });
}
