import type { JsonObject } from '../json.js';

/** What a Web API method answers; HTTP 200 either way, like Slack. */
export type MethodResult = JsonObject;

export function failure(error: string, extra: JsonObject = {}): MethodResult {
  return { ok: false, error, ...extra };
}

/** Slack's shape for Block Kit problems: `errors` plus `[ERROR]` lines the SDK logs. */
export function blockFailure(error: string, problems: readonly string[]): MethodResult {
  return failure(error, {
    errors: [...problems],
    response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) },
  });
}
