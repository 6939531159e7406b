/**
 * The sandbox's Slack workspace: one team, a bot, four people, three channels and a user group.
 * The ids are stable and shaped like Slack's (`T…`, `U…`, `C…`, `S…`, `D…`), so tests, demo
 * policy files and docs can name them.
 */

export const TEAM = { id: 'T0SANDBOX01', domain: 'sandbox', name: 'Sandbox' } as const;

/** The installed app and its bot user (what `auth.test` answers for the bot token). */
export const BOT = {
  appId: 'A0SANDBOX01',
  botId: 'B0SANDBOX01',
  userId: 'U0SANDBOT01',
  name: 'approvals',
  realName: 'Approvals',
} as const;

export interface Person {
  readonly id: string;
  /** The handle, as in `@alice`. */
  readonly name: string;
  readonly realName: string;
  readonly title: string;
  readonly email: string;
  /** Avatar background on the page. */
  readonly color: string;
  /** The DM channel between this person and the bot. */
  readonly dmId: string;
}

export const PEOPLE = {
  /** Starts agent runs: the requester. */
  alice: {
    id: 'U0ALICE0001',
    name: 'alice',
    realName: 'Alice Archer',
    title: 'Software engineer',
    email: 'alice@sandbox.example',
    color: '#2a80b9',
    dmId: 'D0ALICE0001',
  },
  /** An approver, in @oncall. */
  bob: {
    id: 'U0BOB000001',
    name: 'bob',
    realName: 'Bob Brennan',
    title: 'SRE, on call',
    email: 'bob@sandbox.example',
    color: '#2b9b6a',
    dmId: 'D0BOB000001',
  },
  /** An approver, in @oncall. */
  carol: {
    id: 'U0CAROL0001',
    name: 'carol',
    realName: 'Carol Chen',
    title: 'Engineering manager',
    email: 'carol@sandbox.example',
    color: '#c0562b',
    dmId: 'D0CAROL0001',
  },
  /** Sees the cards in #ops but may approve nothing: the outsider. */
  dave: {
    id: 'U0DAVE00001',
    name: 'dave',
    realName: 'Dave Dalton',
    title: 'Contractor',
    email: 'dave@sandbox.example',
    color: '#8e44ad',
    dmId: 'D0DAVE00001',
  },
} as const satisfies Record<string, Person>;

export interface Channel {
  readonly id: string;
  readonly name: string;
  readonly topic: string;
  readonly isPrivate: boolean;
  /** People in the channel; the bot is in every channel. */
  readonly members: readonly string[];
}

export const CHANNELS = {
  general: {
    id: 'C0GENERAL01',
    name: 'general',
    topic: 'Company-wide announcements',
    isPrivate: false,
    members: [PEOPLE.alice.id, PEOPLE.bob.id, PEOPLE.carol.id, PEOPLE.dave.id],
  },
  ops: {
    id: 'C0OPS000001',
    name: 'ops',
    topic: 'Production changes and approvals',
    isPrivate: false,
    members: [PEOPLE.alice.id, PEOPLE.bob.id, PEOPLE.carol.id, PEOPLE.dave.id],
  },
  payments: {
    id: 'C0PAYMENTS1',
    name: 'payments',
    topic: 'Refunds and payouts',
    isPrivate: false,
    members: [PEOPLE.alice.id, PEOPLE.bob.id, PEOPLE.carol.id],
  },
  incidents: {
    id: 'C0INCIDENTS',
    name: 'incidents',
    topic: 'Outages in progress',
    isPrivate: false,
    members: [PEOPLE.alice.id, PEOPLE.bob.id, PEOPLE.carol.id, PEOPLE.dave.id],
  },
  releases: {
    id: 'C0RELEASES1',
    name: 'releases',
    topic: 'Deploys and rollbacks',
    isPrivate: false,
    members: [PEOPLE.alice.id, PEOPLE.bob.id, PEOPLE.carol.id, PEOPLE.dave.id],
  },
} as const satisfies Record<string, Channel>;

export interface UserGroup {
  readonly id: string;
  /** As in `@oncall`. */
  readonly handle: string;
  readonly name: string;
  readonly users: readonly string[];
}

export const USERGROUPS = {
  oncall: {
    id: 'S0ONCALL001',
    handle: 'oncall',
    name: 'On-call',
    users: [PEOPLE.bob.id, PEOPLE.carol.id],
  },
} as const satisfies Record<string, UserGroup>;

const people: readonly Person[] = Object.values(PEOPLE);
const channels: readonly Channel[] = Object.values(CHANNELS);
const groups: readonly UserGroup[] = Object.values(USERGROUPS);

export function allPeople(): readonly Person[] {
  return people;
}

export function allChannels(): readonly Channel[] {
  return channels;
}

export function allUserGroups(): readonly UserGroup[] {
  return groups;
}

/** A person by id or handle (`U0BOB000001`, `bob`, `@bob`). */
export function findPerson(idOrName: string): Person | undefined {
  const name = idOrName.replace(/^@/, '');
  return people.find((p) => p.id === idOrName || p.name === name);
}

export function findUserGroup(idOrHandle: string): UserGroup | undefined {
  const handle = idOrHandle.replace(/^@/, '');
  return groups.find((g) => g.id === idOrHandle || g.handle === handle);
}

/**
 * A conversation the bot can post to, by id or name (`C0OPS000001`, `ops`, `#ops`), or a DM:
 * its `D…` id, or a person's user id (Slack posts to the DM with the bot when given a user id).
 */
export type Conversation =
  | { kind: 'channel'; id: string; name: string; channel: Channel }
  | { kind: 'dm'; id: string; name: string; person: Person };

export function findConversation(idOrName: string): Conversation | undefined {
  const name = idOrName.replace(/^#/, '');
  const channel = channels.find((c) => c.id === idOrName || c.name === name);
  if (channel) return { kind: 'channel', id: channel.id, name: channel.name, channel };
  const person = people.find((p) => p.dmId === idOrName || p.id === idOrName);
  if (person) return { kind: 'dm', id: person.dmId, name: person.dmId, person };
  return undefined;
}

/** Whether a person can see a conversation (and so post, click and get ephemerals in it). */
export function isMember(conversation: Conversation, userId: string): boolean {
  return conversation.kind === 'channel'
    ? conversation.channel.members.includes(userId)
    : conversation.person.id === userId;
}

/** Members as `conversations.members` lists them: people first, then the bot. */
export function membersOf(conversation: Conversation): string[] {
  return conversation.kind === 'channel'
    ? [...conversation.channel.members, BOT.userId]
    : [conversation.person.id, BOT.userId];
}

/** Slack's own user, author of system notes such as "/agent failed with the error …". */
export const SLACKBOT = { id: 'USLACKBOT', name: 'slackbot', realName: 'Slackbot' } as const;
