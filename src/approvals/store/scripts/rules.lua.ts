import {
  FINISHED_RESUME_STATES,
  GATE_STATES,
  RESUME_STATES,
  SYSTEM_ACTOR,
  voteSchema,
} from '../../records.js';
import {
  AUDIT_EVENTS,
  AUDIT_FACTS,
  EXPIRY_CANCEL_DETAIL,
  EXPIRY_OUTCOME,
  expiredDetail,
  FACT_JOIN,
  FACT_PARTS,
  FACT_SEPARATOR,
  FINISH_EVENT,
  VOTE_OUTCOME,
} from '../rules.js';

/**
 * The store's rules (rules.ts) as Lua, for the per-pause scripts: every state, vote choice,
 * audit event and fact name, each outcome table, and the detail format. Vocabulary tables are
 * strict: a name missing from them is an error when the script runs, never a silent nil.
 */
export function luaRules(): string {
  return [
    // One metatable for them all: a metatable and a closure per table, made anew at every call,
    // were a tenth of what the prelude costs a script.
    'local STRICT_NAMES = {}',
    "local STRICT = {__index = function(t, key) error(STRICT_NAMES[t] .. ' has no ' .. tostring(key)) end}",
    'local function strict(name, t)',
    '  STRICT_NAMES[t] = name',
    '  return setmetatable(t, STRICT)',
    'end',
    vocabulary('STATE', GATE_STATES),
    vocabulary('RESUME', RESUME_STATES),
    vocabulary('CHOICE', voteSchema.shape.choice.options),
    vocabulary('EVENT', AUDIT_EVENTS),
    vocabulary('FACT', AUDIT_FACTS),
    `local RESUME_FINISHED = ${luaSet(FINISHED_RESUME_STATES)}`,
    strictTable('VOTE_OUTCOME', VOTE_OUTCOME),
    strictTable('EXPIRY_OUTCOME', EXPIRY_OUTCOME),
    strictTable('FINISH_EVENT', FINISH_EVENT),
    strictTable('EXPIRED_DETAIL', expiredDetails()),
    `local EXPIRY_CANCEL_DETAIL = ${luaString(EXPIRY_CANCEL_DETAIL)}`,
    `local SYSTEM = ${luaString(SYSTEM_ACTOR)}`,
    // The twin of `auditDetail`: name, value pairs; nil or false (a missing field) is left out,
    // a table is a fact of several parts.
    'local function detail(...)',
    "  local parts, n = {}, select('#', ...)",
    '  for i = 1, n, 2 do',
    '    local name, value = select(i, ...)',
    `    if type(value) == 'table' then value = table.concat(value, ${luaString(FACT_PARTS)}) end`,
    `    if value ~= nil and value ~= false then parts[#parts + 1] = name .. ${luaString(FACT_JOIN)} .. tostring(value) end`,
    '  end',
    `  return table.concat(parts, ${luaString(FACT_SEPARATOR)})`,
    'end',
  ].join('\n');
}

/** `local NAME = strict('NAME', {a = 'a', ...})`: names the scripts write, checked when used. */
function vocabulary(name: string, words: readonly string[]): string {
  return strictTable(name, Object.fromEntries(words.map((word) => [word, word])));
}

/** A table whose every read of a missing key is an error (`rawget` looks a key up safely). */
function strictTable(name: string, entries: Record<string, string>): string {
  return `local ${name} = strict('${name}', ${luaTable(entries)})`;
}

function expiredDetails(): Record<string, string> {
  return Object.fromEntries(
    Object.values(EXPIRY_OUTCOME).map((state) => [state, expiredDetail(state)]),
  );
}

function luaTable(entries: Record<string, string>): string {
  const fields = Object.entries(entries).map(
    ([key, value]) => `${luaName(key)} = ${luaString(value)}`,
  );
  return `{${fields.join(', ')}}`;
}

function luaSet(words: readonly string[]): string {
  return `{${words.map((word) => `${luaName(word)} = true`).join(', ')}}`;
}

function luaName(word: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(word)) throw new Error(`"${word}" is not a Lua table key`);
  return word;
}

/** Printable ASCII only, where Lua's and JSON's double-quoted strings agree. */
function luaString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error(`"${text}" is not a plain Lua string`);
  return JSON.stringify(text);
}
