import { z } from 'zod';

/** JSON as Slack sends and stores it: blocks, views and payloads are plain JSON trees. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const jsonSchema: z.ZodType<Json> = z.json();

export function parseJson(text: string): { ok: true; value: Json } | { ok: false } {
  try {
    const value: unknown = JSON.parse(text);
    const parsed = jsonSchema.safeParse(value);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
  } catch {
    return { ok: false };
  }
}

export function isJsonObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy, so callers can never mutate what the sandbox holds. */
export function copyJson<T extends Json>(value: T): T {
  return structuredClone(value);
}
