import { type ApiCall, RateLimits } from './api-calls.js';
import { type ChannelRate, ChannelRateLimits } from './channel-rates.js';
import { Conversations } from './conversations.js';
import { EventOutbox } from './events/outbox.js';
import { Homes } from './homes.js';
import { Modals } from './modals.js';
import { ResponseUrls } from './response-urls.js';
import { TimestampSource } from './timestamps.js';
import { Triggers } from './triggers.js';
import type { UserGroup } from './workspace.js';

/**
 * What a Slack client would tell a person outside the messages themselves: a click the app did
 * not acknowledge, a failed slash command. The page shows them; tests can assert on them.
 */
export interface Notice {
  id: number;
  user: string;
  text: string;
  channel: string | undefined;
  messageTs: string | undefined;
  viewId: string | undefined;
  atMs: number;
}

/** Everything the sandbox holds, plus a change signal that drives live updates and `waitFor`. */
export class SandboxState {
  readonly timestamps: TimestampSource;
  readonly conversations: Conversations;
  readonly modals: Modals;
  readonly homes: Homes;
  readonly triggers: Triggers;
  readonly responseUrls: ResponseUrls;
  readonly rateLimits = new RateLimits();
  /** Per-channel posting limits; none unless the sandbox was started with `channelRates`. */
  readonly channelRates: ChannelRateLimits;
  /** Events API events for the app; see `events/`. */
  readonly events = new EventOutbox();
  calls: ApiCall[] = [];
  notices: Notice[] = [];
  /** User groups whose members were changed (`setGroupMembers`), by group id. */
  private readonly groupMembers = new Map<string, readonly string[]>();
  private version = 0;
  private nextNoticeId = 1;
  private readonly listeners = new Set<() => void>();

  constructor(
    options: { triggerTtlMs: number; channelRates?: Readonly<Record<string, ChannelRate>> },
    readonly nowMs: () => number = Date.now,
  ) {
    this.channelRates = new ChannelRateLimits(options.channelRates ?? {}, nowMs);
    this.timestamps = new TimestampSource(nowMs);
    this.conversations = new Conversations(this.timestamps);
    this.modals = new Modals(nowMs);
    this.homes = new Homes(nowMs);
    this.triggers = new Triggers(options.triggerTtlMs, nowMs);
    this.responseUrls = new ResponseUrls(nowMs);
  }

  get currentVersion(): number {
    return this.version;
  }

  /** Call after every mutation: page clients refresh and `waitFor` probes run again. */
  changed(): void {
    this.version += 1;
    for (const listener of [...this.listeners]) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** A user group's members as they stand: the workspace's, unless changed since. */
  membersOfGroup(group: UserGroup): readonly string[] {
    return this.groupMembers.get(group.id) ?? group.users;
  }

  setGroupMembers(group: UserGroup, users: readonly string[]): void {
    this.groupMembers.set(group.id, [...users]);
    this.changed();
  }

  recordCall(call: ApiCall): void {
    this.calls.push(call);
  }

  notify(notice: Omit<Notice, 'id' | 'atMs'>): Notice {
    const full = { ...notice, id: this.nextNoticeId++, atMs: this.nowMs() };
    this.notices.push(full);
    return full;
  }

  /**
   * Back to an empty workspace: no messages, modals, calls or notices (ids stay the same), and
   * the user groups' members as the workspace has them.
   */
  reset(): void {
    this.groupMembers.clear();
    this.conversations.clear();
    this.modals.clear();
    this.homes.clear();
    this.rateLimits.clear();
    this.channelRates.clear();
    this.calls = [];
    this.notices = [];
  }
}
