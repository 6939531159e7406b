import { z } from 'zod';
import { parseJsonText } from '../../json.js';
import { StoreError } from '../store.js';
import type { GateRef } from '../store-roles/pending-queries.js';

/** A member of the expiry set, or of a pending set: `[pauseId, callId]` as JSON. */
const gateMemberSchema = z.tuple([z.string(), z.string()]);

export function indexMember(pauseId: string, callId: string): string {
  return JSON.stringify([pauseId, callId]);
}

export function parseMember(key: string, member: string): GateRef {
  const json = parseJsonText(member);
  const parsed = gateMemberSchema.safeParse(json.ok ? json.value : undefined);
  if (!parsed.success) {
    throw new StoreError('corrupt_record', `${key} holds an entry that is not [pauseId, callId]`);
  }
  const [pauseId, callId] = parsed.data;
  return { pauseId, callId };
}

/** A WITHSCORES reply `[m1, s1, m2, s2]` → `[{member, score}]`. */
export function withScores(flat: readonly string[]): { member: string; score: number }[] {
  const out: { member: string; score: number }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    out.push({ member: flat[i] ?? '', score: Number(flat[i + 1]) });
  }
  return out;
}
