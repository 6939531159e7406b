import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';

/**
 * manifest.yml asks for every scope the app's code needs: the Web API methods it calls, the
 * events it listens to and its slash command, read from the sources, against Slack's method →
 * scope table kept in test/slack/slack-scopes.yml (its source named there). A scope missing from
 * the manifest shows only in a real workspace, as a `missing_scope` the sandbox never answers.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const CONVERSATION_TYPES = ['public_channel', 'private_channel', 'im', 'mpim'] as const;
type ConversationType = (typeof CONVERSATION_TYPES)[number];

const needsSchema = z.union([
  z.object({ scopes: z.array(z.string()) }).strict(),
  z
    .object({ byConversationType: z.partialRecord(z.enum(CONVERSATION_TYPES), z.string()) })
    .strict(),
]);
type Needs = z.infer<typeof needsSchema>;

const tableSchema = z.object({
  methods: z.record(z.string(), needsSchema),
  events: z.record(z.string(), z.object({ scopes: z.array(z.string()) }).strict()),
  slashCommands: z.object({ scopes: z.array(z.string()) }).strict(),
});

const manifestSchema = z.object({
  features: z.object({
    slash_commands: z.array(z.object({ command: z.string() })).default([]),
  }),
  oauth_config: z.object({ scopes: z.object({ bot: z.array(z.string()) }) }),
  settings: z.object({
    event_subscriptions: z.object({ bot_events: z.array(z.string()) }),
  }),
});
type Manifest = z.infer<typeof manifestSchema>;

/**
 * Which conversations the app uses a conversation method for: the members of a public or
 * private channel named as approvers (`approvers: channel`), a DM with one approver
 * (reminders, escalations), and where cards go, for a card posted before a crash.
 */
const CONVERSATIONS_USED: Record<string, readonly ConversationType[]> = {
  'conversations.members': ['public_channel', 'private_channel'],
  'conversations.open': ['im'],
  // Looking for a card posted before a crash, where cards go: run threads and policy channels.
  'conversations.history': ['public_channel', 'private_channel', 'im'],
  'conversations.replies': ['public_channel', 'private_channel', 'im'],
};

/**
 * Where a `message` listener hears people: run threads in public and private channels, and in a
 * direct message with the app (docs/slack.md).
 */
const MESSAGE_SUBSCRIPTIONS = ['message.channels', 'message.groups', 'message.im'];

const table = tableSchema.parse(
  parse(await readFile(join(ROOT, 'test/slack/slack-scopes.yml'), 'utf8')),
);
const manifest = manifestSchema.parse(parse(await readFile(join(ROOT, 'manifest.yml'), 'utf8')));
const code = await appCalls();

/** The Slack calls in the app's sources (src/), read from their syntax trees. */
async function appCalls(): Promise<{
  methods: Set<string>;
  events: Set<string>;
  commands: Set<string>;
}> {
  const found = {
    methods: new Set<string>(),
    events: new Set<string>(),
    commands: new Set<string>(),
  };
  for (const file of await sourceFiles(join(ROOT, 'src'))) {
    const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest);
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText(source) === 'App') {
        // Bolt's App verifies its token with auth.test before it handles anything.
        found.methods.add('auth.test');
      }
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const callee = node.expression.getText(source).replace(/\s+/g, '');
        const first = node.arguments[0];
        const literal = first && ts.isStringLiteralLike(first) ? first.text : undefined;
        // `client.apiCall('chat.postMessage', …)`: the method named as a string.
        if (node.expression.name.text === 'apiCall' && literal) found.methods.add(literal);
        // `this.client.users.info(…)`: a WebClient (or Bolt's `client`) method.
        const typed = /(?:^|\.)(?:client|\w+Client)\.((?:[a-z]\w*\.)+[a-z]\w*)$/.exec(callee);
        if (typed?.[1] && typed[1] !== 'apiCall') found.methods.add(typed[1]);
        if (/(?:^|\.)app\.event$/.test(callee) && literal) found.events.add(literal);
        if (/(?:^|\.)app\.command$/.test(callee) && literal) found.commands.add(literal);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The scopes a method needs for the app's use of it. */
function scopesOf(method: string, needs: Needs): string[] {
  if ('scopes' in needs) return needs.scopes;
  return (CONVERSATIONS_USED[method] ?? CONVERSATION_TYPES).map((type) => {
    const scope = needs.byConversationType[type];
    if (scope === undefined) throw new Error(`${method}: no scope listed for a ${type}`);
    return scope;
  });
}

/** "<method or event>: <scope>" for each scope the code needs that the manifest lacks. */
function missingScopes(of: Manifest): string[] {
  const granted = new Set(of.oauth_config.scopes.bot);
  const needed: Array<[string, string[]]> = [
    ...[...code.methods].map((method): [string, string[]] => {
      const needs = table.methods[method];
      return [method, needs ? scopesOf(method, needs) : []];
    }),
    ...of.settings.event_subscriptions.bot_events.map((event): [string, string[]] => [
      `event ${event}`,
      table.events[event]?.scopes ?? [],
    ]),
    ...[...code.commands].map((command): [string, string[]] => [
      command,
      table.slashCommands.scopes,
    ]),
  ];
  return needed.flatMap(([what, scopes]) =>
    scopes.filter((scope) => !granted.has(scope)).map((scope) => `${what}: ${scope}`),
  );
}

describe('manifest.yml covers what the code calls', () => {
  it('the sources are read: the calls known to be there are found', () => {
    // A reader that found nothing would make every other test here pass.
    for (const method of ['chat.postMessage', 'views.publish', 'users.info', 'auth.test']) {
      expect(code.methods).toContain(method);
    }
    expect(code.events).toContain('message');
    expect(code.commands).toContain('/agent');
  });

  it('every Web API method the app calls is in the scope table (added from its reference page)', () => {
    expect([...code.methods].filter((method) => !(method in table.methods))).toEqual([]);
  });

  it("the manifest's bot scopes cover every method, event and command the app uses", () => {
    expect(missingScopes(manifest)).toEqual([]);
  });

  it('without users:read the check names users.info (names on decisions, the audit’s byName)', () => {
    const without = structuredClone(manifest);
    without.oauth_config.scopes.bot = without.oauth_config.scopes.bot.filter(
      (scope) => scope !== 'users:read',
    );
    expect(missingScopes(without)).toEqual(['users.info: users:read']);
  });

  it('the manifest subscribes to every event the app listens to, and to no event unknown here', () => {
    const subscribed = manifest.settings.event_subscriptions.bot_events;
    const wanted = [...code.events].flatMap((event) =>
      event === 'message' ? MESSAGE_SUBSCRIPTIONS : [event],
    );
    expect(wanted.filter((event) => !subscribed.includes(event))).toEqual([]);
    expect(subscribed.filter((event) => !(event in table.events))).toEqual([]);
  });

  it('the manifest declares every slash command the app answers', () => {
    const declared = manifest.features.slash_commands.map((entry) => entry.command);
    expect([...code.commands].filter((command) => !declared.includes(command))).toEqual([]);
  });
});
