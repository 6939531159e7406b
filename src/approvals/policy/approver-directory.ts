import { z } from 'zod';
import { LookupCache } from './lookup-cache.js';

/** Who belongs to a user group or a channel: what authorizing a click needs from Slack. */
export interface ApproverDirectory {
  usergroupMembers(groupId: string): Promise<readonly string[]>;
  channelMembers(channelId: string): Promise<readonly string[]>;
}

/**
 * Membership could not be looked up (Slack unreachable, rate limited, a missing scope, an unknown
 * group). Authorization fails closed on it: the clicker is told to try again, never let through.
 */
export class ApproverDirectoryError extends Error {
  override readonly name = 'ApproverDirectoryError';
  constructor(
    readonly lookup: { kind: 'usergroup' | 'channel'; id: string },
    /** Slack's error code (`missing_scope`, `ratelimited`…) or the client's, when there is one. */
    readonly slackError: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      `Could not list the members of ${lookup.kind === 'usergroup' ? 'user group' : 'channel'} ${lookup.id}${slackError ? ` (${slackError})` : ''}`,
      options,
    );
  }
}

/**
 * The two Web API methods the directory calls, shaped so that `@slack/web-api`'s `WebClient` (and
 * Bolt's `client`) fits as it is. Responses are parsed here, not trusted.
 */
export interface ApproverDirectoryClient {
  usergroups: { users: { list(args: { usergroup: string }): Promise<unknown> } };
  conversations: {
    members(args: { channel: string; cursor?: string; limit?: number }): Promise<unknown>;
  };
}

export interface SlackApproverDirectoryOptions {
  /**
   * How long a membership list is trusted; default 5 s. A removed approver keeps voting rights
   * this long at most. Longer would save little: concurrent clicks already share one lookup.
   */
  ttlMs?: number;
  /** Default `Date.now`. */
  now?: () => number;
  /** Groups and channels remembered at most; default 1000. */
  maxEntries?: number;
  /** Members per `conversations.members` page; default 200, Slack's advice for paginated methods. */
  pageSize?: number;
  /** Pages read at most per channel (default 100, 20,000 members); a larger channel fails closed. */
  maxPages?: number;
}

const DEFAULT_TTL_MS = 5_000;

const slackFailureSchema = z.object({ ok: z.literal(false), error: z.string().optional() });
const usergroupUsersSchema = z.object({ ok: z.literal(true), users: z.array(z.string()) });
const membersPageSchema = z.object({
  ok: z.literal(true),
  members: z.array(z.string()),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});
/** What `WebClient` throws: `code` is e.g. `slack_webapi_platform_error`, `data.error` Slack's code. */
const clientErrorSchema = z.object({
  code: z.string(),
  data: z.object({ error: z.string() }).optional(),
});

/**
 * Looks members up with the Web API, remembers them for `ttlMs`, and shares one request among
 * concurrent clicks: `usergroups.users.list` is Tier 2 (about 20 calls a minute).
 */
export class SlackApproverDirectory implements ApproverDirectory {
  private readonly cache: LookupCache<readonly string[]>;
  private readonly pageSize: number;
  private readonly maxPages: number;

  constructor(
    private readonly client: ApproverDirectoryClient,
    options: SlackApproverDirectoryOptions = {},
  ) {
    this.cache = new LookupCache({
      ttlMs: options.ttlMs ?? DEFAULT_TTL_MS,
      now: options.now ?? Date.now,
      maxEntries: options.maxEntries ?? 1000,
    });
    this.pageSize = options.pageSize ?? 200;
    this.maxPages = options.maxPages ?? 100;
  }

  usergroupMembers(groupId: string): Promise<readonly string[]> {
    const lookup = { kind: 'usergroup', id: groupId } as const;
    return this.cache.get(`usergroup:${groupId}`, async () => {
      const response = await call(lookup, () =>
        this.client.usergroups.users.list({ usergroup: groupId }),
      );
      return parseResponse(lookup, usergroupUsersSchema, response).users;
    });
  }

  channelMembers(channelId: string): Promise<readonly string[]> {
    const lookup = { kind: 'channel', id: channelId } as const;
    return this.cache.get(`channel:${channelId}`, async () => {
      const members: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < this.maxPages; page++) {
        const args = { channel: channelId, limit: this.pageSize, ...(cursor ? { cursor } : {}) };
        const response = await call(lookup, () => this.client.conversations.members(args));
        const parsed = parseResponse(lookup, membersPageSchema, response);
        members.push(...parsed.members);
        const next = parsed.response_metadata?.next_cursor;
        // Slack ends a listing with an empty cursor; one that repeats would never end.
        if (!next) return members;
        if (next === cursor) throw new ApproverDirectoryError(lookup, 'repeated_cursor');
        cursor = next;
      }
      throw new ApproverDirectoryError(lookup, `more_than_${this.maxPages}_pages`);
    });
  }
}

async function call(
  lookup: ApproverDirectoryError['lookup'],
  request: () => Promise<unknown>,
): Promise<unknown> {
  try {
    return await request();
  } catch (error) {
    const known = clientErrorSchema.safeParse(error);
    const code = known.success ? (known.data.data?.error ?? known.data.code) : undefined;
    throw new ApproverDirectoryError(lookup, code, { cause: error });
  }
}

function parseResponse<T>(
  lookup: ApproverDirectoryError['lookup'],
  schema: z.ZodType<T>,
  response: unknown,
): T {
  const failure = slackFailureSchema.safeParse(response);
  if (failure.success) throw new ApproverDirectoryError(lookup, failure.data.error ?? 'not_ok');
  const parsed = schema.safeParse(response);
  if (!parsed.success) throw new ApproverDirectoryError(lookup, 'unexpected_response');
  return parsed.data;
}
