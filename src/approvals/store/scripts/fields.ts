/**
 * The hash fields of a pause and of a gate. Records are split so that the Lua scripts only ever
 * read and write flat fields: the JSON parts (`record`, `policy`, `votes`, `decision`, …) are
 * written by TypeScript and never re-encoded in Lua, whose cjson would turn `[]` into `{}` and
 * round numbers to 14 digits.
 *
 * Pause hash: `record` (JSON: id, adk, requester, card without ts, callIds, createdAt), `cardTs`,
 * `version`, `gateCount`, `pending` (gates still pending), `resumeState`, `attempts`,
 * `leaseOwner`, `leaseUntil`, `lastError`, `resumeAt`.
 *
 * Gate hash: `record` (JSON: the gate, pauseId, createdAt), `policy` (JSON), `callId`, `state`,
 * `version`, `expiresAt`, `votes` (JSON array, appended to), `approvals` (distinct approving
 * voters), `lastPayload` (JSON of the latest approve vote's payload), `decision` (JSON: by, at,
 * reason), `decisionPayload` (JSON), and one `v:<voter>` field per voter.
 */

/** What a script returns of a pause, in this order (HMGET). */
export const PAUSE_FIELDS = [
  'record',
  'cardTs',
  'version',
  'resumeState',
  'attempts',
  'leaseOwner',
  'leaseUntil',
  'lastError',
  'resumeAt',
] as const;

/** What a script returns of a gate, in this order (HMGET). */
export const GATE_FIELDS = [
  'record',
  'policy',
  'state',
  'version',
  'expiresAt',
  'votes',
  'decision',
  'decisionPayload',
] as const;

/** `local NAME = {'a', 'b'}` for the Lua side. */
export function luaFieldList(name: string, fields: readonly string[]): string {
  return `local ${name} = {${fields.map((field) => `'${field}'`).join(', ')}}`;
}
