import { z } from 'zod';

/** Any JSON value: what tool arguments, confirmation payloads and Slack payloads are made of. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);
export const jsonObjectSchema: z.ZodType<JsonObject> = z.record(z.string(), jsonValueSchema);

export type JsonText = { ok: true; value: unknown } | { ok: false };

/**
 * JSON text to a value that still has to be parsed with a schema. Not JSON is an outcome, not an
 * exception: every caller words it for its own edge.
 */
export function parseJsonText(text: string): JsonText {
  try {
    const value: unknown = JSON.parse(text);
    return { ok: true, value };
  } catch {
    return { ok: false };
  }
}
