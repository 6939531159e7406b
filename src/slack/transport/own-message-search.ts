import { z } from 'zod';
import type { OwnMessageQuery } from './port.js';

/** Who the app is in Slack (`auth.test`): its messages carry its bot user, or its bot id. */
export interface BotIdentity {
  userId: string;
  botId: string | undefined;
}

const identitySchema = z.object({
  user_id: z.string().min(1),
  bot_id: z.string().min(1).optional(),
});

/** `auth.test`'s answer; undefined when it names no user. */
export function parseBotIdentity(answer: unknown): BotIdentity | undefined {
  const parsed = identitySchema.safeParse(answer);
  return parsed.success ? { userId: parsed.data.user_id, botId: parsed.data.bot_id } : undefined;
}

const pageSchema = z.object({
  messages: z.array(
    z.object({
      ts: z.string().min(1),
      user: z.string().optional(),
      bot_id: z.string().optional(),
      metadata: z
        .object({
          event_type: z.string(),
          event_payload: z.record(z.string(), z.unknown()).optional(),
        })
        .optional(),
    }),
  ),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

/** Pages read at most: the messages sought were posted seconds after `sinceMs`. */
const MAX_PAGES = 5;
const PAGE_SIZE = 200;

export type HistoryMethod = 'conversations.history' | 'conversations.replies';

/**
 * The earliest message the app itself posted that matches the query (see
 * `SlackPort.findOwnMessage`), read page by page from the channel's history or the thread's
 * replies. Only the app's own messages count: another app's message with the same metadata could
 * otherwise stand in for a card that was never posted.
 */
export async function searchOwnMessage(
  read: (method: HistoryMethod, args: Record<string, unknown>) => Promise<unknown>,
  identity: BotIdentity,
  query: OwnMessageQuery,
): Promise<string | undefined> {
  const method: HistoryMethod =
    query.threadTs === undefined ? 'conversations.history' : 'conversations.replies';
  const found: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = pageSchema.parse(
      await read(method, {
        channel: query.channel,
        ...(query.threadTs === undefined ? {} : { ts: query.threadTs }),
        oldest: slackTs(query.sinceMs),
        include_all_metadata: true,
        limit: PAGE_SIZE,
        ...(cursor === undefined ? {} : { cursor }),
      }),
    );
    for (const message of answer.messages) {
      const own =
        message.user === identity.userId ||
        (identity.botId !== undefined && message.bot_id === identity.botId);
      const metadata = message.metadata;
      if (!own || metadata?.event_type !== query.eventType) continue;
      const payload = metadata.event_payload ?? {};
      if (Object.entries(query.payload).every(([key, value]) => payload[key] === value)) {
        found.push(message.ts);
      }
    }
    cursor = answer.response_metadata?.next_cursor;
    if (cursor === undefined || cursor === '') break;
  }
  return found.sort((a, b) => Number(a) - Number(b))[0];
}

/** A Slack timestamp (`<seconds>.<microseconds>`) of a time in ms. */
function slackTs(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(6);
}
