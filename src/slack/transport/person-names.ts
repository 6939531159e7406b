import { z } from 'zod';

/** Who a Slack user id is, for people and agents that read decisions outside Slack. */
export interface PersonNames {
  /** The person's display name (else real name, else handle); undefined when Slack cannot say. */
  nameOf(userId: string): Promise<string | undefined>;
}

/** The one Web API method it calls, shaped so that Bolt's `client` fits as it is. */
export interface UsersInfoClient {
  users: { info(args: { user: string }): Promise<unknown> };
}

const userInfoSchema = z.object({
  ok: z.literal(true),
  user: z.object({
    name: z.string().optional(),
    real_name: z.string().optional(),
    profile: z
      .object({ display_name: z.string().optional(), real_name: z.string().optional() })
      .optional(),
  }),
});

/** Names change rarely; an hour keeps `users.info` (Tier 4) calls to one per decider and hour. */
const DEFAULT_TTL_MS = 60 * 60 * 1000;
const MAX_ENTRIES = 1000;

/**
 * Names from `users.info`, remembered for an hour. A failed lookup is not an error: the name is
 * a courtesy next to the user id, which stays authoritative.
 */
export class SlackPersonNames implements PersonNames {
  private readonly known = new Map<string, { name: string; at: number }>();

  constructor(
    private readonly client: UsersInfoClient,
    private readonly options: { ttlMs?: number; now?: () => number } = {},
  ) {}

  async nameOf(userId: string): Promise<string | undefined> {
    const now = (this.options.now ?? Date.now)();
    const cached = this.known.get(userId);
    if (cached && now - cached.at < (this.options.ttlMs ?? DEFAULT_TTL_MS)) return cached.name;
    let response: unknown;
    try {
      response = await this.client.users.info({ user: userId });
    } catch {
      return cached?.name;
    }
    const parsed = userInfoSchema.safeParse(response);
    if (!parsed.success) return cached?.name;
    const { user } = parsed.data;
    const name = [user.profile?.display_name, user.profile?.real_name, user.real_name, user.name]
      .map((candidate) => candidate?.trim())
      .find((candidate) => candidate !== undefined && candidate !== '');
    if (name === undefined) return undefined;
    this.known.delete(userId);
    this.known.set(userId, { name, at: now });
    // Oldest first out: a Map keeps insertion order.
    if (this.known.size > MAX_ENTRIES) {
      const oldest = this.known.keys().next();
      if (!oldest.done) this.known.delete(oldest.value);
    }
    return name;
  }
}

/** How long a decision waits for its decider's name (a cold `users.info`) before going without. */
export const NAME_WAIT_MS = 1_000;

/**
 * A person's display name for the audit, or undefined: without `people`, when Slack cannot say,
 * or when it takes longer than `waitMs` (the decision never waits on a courtesy).
 */
export async function displayNameWithin(
  people: PersonNames | undefined,
  userId: string,
  waitMs = NAME_WAIT_MS,
): Promise<string | undefined> {
  if (people === undefined) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), waitMs);
  });
  try {
    return await Promise.race([people.nameOf(userId).catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
