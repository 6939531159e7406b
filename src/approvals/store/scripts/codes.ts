/**
 * Every status a Lua script of the Redis store returns, in one place. The scripts receive this
 * table as their `CODE` (see `luaCodeTable`), so a number is written down only here.
 * Negative codes are failures the caller cannot act on as an outcome.
 */
export const ScriptCode = {
  OK: 0,
  CREATED: 1,
  EXISTED: 2,
  COUNTED: 10,
  DECIDED: 11,
  ALREADY_VOTED: 12,
  ALREADY_DECIDED: 13,
  EXPIRED: 14,
  /** A gate of the pause changed since the caller checked it (vote's checkedGatesVersion): nothing written. */
  STALE: 15,
  CANCELLED: 20,
  NOTHING_PENDING: 21,
  WITHDRAWN: 22,
  REOPENED: 23,
  UNDONE: 24,
  TOO_LATE: 25,
  NOT_DECIDER: 26,
  NOT_DUE: 30,
  NOT_PENDING: 31,
  CLAIMED: 40,
  NOT_DECIDED: 41,
  LEASED: 42,
  FINISHED: 43,
  AWAITING_RETRY: 44,
  LOST_LEASE: 50,
  UNCHANGED: 60,
  /** The pause does not exist (never created, or removed after its retention). */
  NOT_FOUND: -1,
  /** A key or field does not hold what the scripts wrote; info = {key index (1-based), problem}. */
  CORRUPT: -2,
  /**
   * The caller's gate keys are not the pause's gates (another count, or a key that does not
   * exist): its cached call ids are stale, or were a guess.
   */
  KEYS_MISMATCH: -3,
} as const;

export type ScriptCodeName = keyof typeof ScriptCode;
export type ScriptCodeValue = (typeof ScriptCode)[ScriptCodeName];

function isCodeName(name: string): name is ScriptCodeName {
  return Object.hasOwn(ScriptCode, name);
}

const NAMES = new Map<number, ScriptCodeName>();
for (const [name, value] of Object.entries(ScriptCode)) {
  if (isCodeName(name)) NAMES.set(value, name);
}

/** The name of a code a script returned, or undefined for a number no script returns. */
export function scriptCodeName(code: number): ScriptCodeName | undefined {
  return NAMES.get(code);
}

/** `local CODE = {OK = 0, ...}`: the same table for the Lua side. */
export function luaCodeTable(): string {
  const entries = Object.entries(ScriptCode).map(([name, value]) => `${name} = ${value}`);
  return `local CODE = {${entries.join(', ')}}`;
}
