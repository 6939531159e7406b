/**
 * The hash fields of a pause and of a gate. Records are split so that the Lua scripts only ever
 * read and write flat fields: the JSON parts (`record`, `policy`, `votes`, `decision`, …) are
 * written by TypeScript and never re-encoded in Lua, whose cjson would turn `[]` into `{}` and
 * round numbers to 14 digits.
 *
 * Pause hash: `record` (JSON: id, adk, requester, card without ts, callIds, createdAt), `cardTs`,
 * `version`, `gateCount`, `pending` (gates still pending), `resumeState`, `attempts`,
 * `leaseOwner`, `leaseUntil`, `lastError`, `resumeAt`, `holdUntil` (an undo window's end),
 * `noAuditList` (NO_AUDIT_LIST_FIELD).
 *
 * Gate hash: `record` (JSON: the gate; kept in the pause hash, see GATE_FIELDS_ON_PAUSE),
 * `policy` (JSON; likewise), `state` (its call id is in its key; gates recorded before commit
 * ad71a6f repeat it in a `callId` field), `version`, `expiresAt`, `votes` (JSON array, appended to), `approvals` (distinct approving
 * voters), `lastPayload` (JSON of the latest approve vote's payload), `decision` (JSON: by, at,
 * reason), `decisionPayload` (JSON), `reopened` (JSON: at, why; see reopen.lua.ts), and one
 * `v:<voter>` field per voter.
 */

/**
 * The pause hash field holding the chain line bodies its scripts wrote and Node has not sealed
 * yet (audit-chain.ts), one per line, oldest first; removed once they are all sealed.
 */
export const UNSEALED_FIELD = 'auditUnsealed';

/**
 * The pause hash field that says the pause has no audit list: set ('1') when the pause is
 * recorded and no list was there. Its scripts then do not expire the list with the pause (a
 * command); a pause without it (recorded before this field) has its list expired with it. The list
 * holds the lines of a pause recorded before 24 November (and those a replica of that time
 * appended), which later versions kept in the pause hash's `trail` field instead; this one keeps
 * each line once, in the store-wide audit stream, and writes neither.
 */
export const NO_AUDIT_LIST_FIELD = 'noAuditList';

/** The pause hash field holding the hash of its last sealed chain line. */
export const CHAIN_HEAD_FIELD = 'auditHead';

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
  'holdUntil',
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
  'reopened',
] as const;

/**
 * The gate fields kept in the pause hash, as `<field>:<gate index>` (1-based, callIds order):
 * the two large JSON values. Left in the gate hash they would make Redis keep it as a hash table
 * (any value over `hash-max-listpack-value`, 64 bytes by default) instead of a listpack, which
 * costs about 600 more bytes per pending gate; the pause hash is a hash table anyway. Gates
 * recorded before this hold them in their own hash, where the scripts look first.
 */
export const GATE_FIELDS_ON_PAUSE = ['record', 'policy'] as const;

/**
 * The Lua helpers for the gate fields kept on the pause (GATE_FIELDS_ON_PAUSE), read with the
 * pause's own fields in one HMGET:
 * - `append_gate_fields_on_pause(fields, i)` adds gate i's names (`record:<i>`, …) to a field list;
 * - `fill_gate_fields(own, values, at)` completes an HMGET of GATE_FIELDS on a gate (`own`) with
 *   the ones it does not hold, from `values` (that HMGET's reply) right after position `at`;
 * - `GATE_FIELDS_ON_PAUSE_COUNT`: how many each gate has there.
 */
export function luaGateFieldsOnPause(): string {
  const positions = GATE_FIELDS_ON_PAUSE.map((field) => {
    const index = GATE_FIELDS.indexOf(field);
    if (index < 0) throw new Error(`${field} is not a gate field`);
    return { field, position: index + 1 };
  });
  return [
    `local GATE_FIELDS_ON_PAUSE_COUNT = ${positions.length}`,
    'local function append_gate_fields_on_pause(fields, i)',
    ...positions.map(({ field }) => `  fields[#fields + 1] = '${field}:' .. i`),
    'end',
    'local function fill_gate_fields(own, values, at)',
    ...positions.map(
      ({ position }, n) =>
        `  if not own[${position}] then own[${position}] = values[at + ${n + 1}] end`,
    ),
    '  return own',
    'end',
  ].join('\n');
}

/** `local NAME = {'a', 'b'}` for the Lua side. */
export function luaFieldList(name: string, fields: readonly string[]): string {
  return `local ${name} = {${fields.map((field) => `'${field}'`).join(', ')}}`;
}
