import { z } from 'zod';
import type { RunIntent, RunProgress } from '../store-roles/run-intents.js';

/** A run intent as its Redis hash holds it (every value a string), parsed at the edge. */
const storedIntentSchema = z.object({
  id: z.string(),
  requester: z.string(),
  teamId: z.string().optional(),
  channelId: z.string(),
  text: z.string(),
  acceptedAt: z.coerce.number(),
  threadTs: z.string().optional(),
  appName: z.string().optional(),
  sessionId: z.string().optional(),
});

/** The hash fields of an intent, or of its progress: only those known. */
export function intentFields(intent: Partial<RunIntent> | RunProgress): string[] {
  const fields: string[] = [];
  for (const [name, value] of Object.entries(intent)) {
    if (value !== undefined) fields.push(name, String(value));
  }
  return fields;
}

export function parseIntentFields(pairs: readonly string[]): RunIntent {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) record[pairs[i] ?? ''] = pairs[i + 1] ?? '';
  const parsed = storedIntentSchema.parse(record);
  return withoutUndefined(parsed);
}

function withoutUndefined(intent: z.infer<typeof storedIntentSchema>): RunIntent {
  const { teamId, threadTs, appName, sessionId, ...rest } = intent;
  return {
    ...rest,
    ...(teamId === undefined ? {} : { teamId }),
    ...(threadTs === undefined ? {} : { threadTs }),
    ...(appName === undefined ? {} : { appName }),
    ...(sessionId === undefined ? {} : { sessionId }),
  };
}
