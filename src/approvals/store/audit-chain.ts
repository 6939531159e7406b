import { createHash } from 'node:crypto';
import { parseJsonText } from '../../json.js';
import { GRANT_ACTOR_PREFIX } from '../grant-actors.js';
import { POLICY_ACTOR_PREFIX } from '../records.js';
import { UNSEALED_FIELD } from './scripts/fields.js';

/**
 * The audit trail's hash chain, one chain per pause: every line a transition writes carries its
 * pause id, its place in the chain (`seq`, from 1), the hash of the line before (`prev`; the
 * first's is all zeros) and its own `hash`: the SHA-256 of the line as written, without its
 * `"hash"` member. Lines are exported byte for byte, so that anyone can check them with nothing
 * but SHA-256 (`npm run audit -- verify`).
 *
 * A line is written in two steps. The transition's script writes its *body* (the line without
 * `prev` and `hash`) in the same Lua call as the transition, which can only touch the pause's own
 * keys (one hash slot): hence a chain per pause, which holds on Redis Cluster as on one Redis.
 * Node then *seals* it: computes `prev` and `hash` (native SHA-256, microseconds, where the same
 * hash in Lua cost about a millisecond of Redis CPU per line) and moves the chain head past it
 * with a compare-and-set (seal-audit.lua.ts). Whoever seals a line copies it to the store-wide
 * audit, the one place it is kept; a body whose writer died before sealing it is sealed by the
 * pause's next transition.
 *
 * A line: `{"v":1,"pauseId":…,"seq":…,"prev":…,"at":…,"event":…,"initiator":…,"actor":…,
 * "callId"?,"decision"?,"detail"?,"what"?,"hash":…}`; `what` is what the gate (or pause) is
 * (audit-facts.ts), `decision` the gate's decision (who, when, reason) once it has one.
 */
export const AUDIT_LINE_VERSION = 1;
export const AUDIT_GENESIS = '0'.repeat(64);

/**
 * Who moved a gate, by the kind of actor: a Slack person, the policy, a grant, the agent (an API
 * key's call: its cancel, claim or reported outcome), or the system (an expiry, a replica).
 */
export type AuditInitiator = 'person' | 'policy' | 'grant' | 'agent' | 'system';

/** An API key's actor (deciders.ts's `apiActor`); spelt here too, as the Lua twin needs it. */
const AGENT_ACTOR_PREFIX = 'api:';
const PERSON = /^[UW][A-Z0-9]+$/;

export function initiatorOf(actor: string): AuditInitiator {
  if (actor.startsWith(POLICY_ACTOR_PREFIX)) return 'policy';
  if (actor.startsWith(GRANT_ACTOR_PREFIX)) return 'grant';
  if (actor.startsWith(AGENT_ACTOR_PREFIX)) return 'agent';
  if (PERSON.test(actor)) return 'person';
  return 'system';
}

/** The twin of `initiatorOf` for the Lua prelude. */
export function luaInitiatorOf(): string {
  return [
    'local function initiator_of(actor)',
    `  if string.sub(actor, 1, ${POLICY_ACTOR_PREFIX.length}) == '${POLICY_ACTOR_PREFIX}' then return 'policy' end`,
    `  if string.sub(actor, 1, ${GRANT_ACTOR_PREFIX.length}) == '${GRANT_ACTOR_PREFIX}' then return 'grant' end`,
    `  if string.sub(actor, 1, ${AGENT_ACTOR_PREFIX.length}) == '${AGENT_ACTOR_PREFIX}' then return 'agent' end`,
    "  if string.match(actor, '^[UW][A-Z0-9]+$') then return 'person' end",
    "  return 'system'",
    'end',
  ].join('\n');
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What the memory store's twin of the Lua `chain_line` needs. */
export interface ChainLineInput {
  pauseId: string;
  seq: number;
  prev: string;
  at: number;
  event: string;
  actor: string;
  callId: string;
  detail: string;
  /** JSON texts, copied verbatim. */
  decision?: string | undefined;
  what?: string | undefined;
}

/**
 * A text as the Lua scripts' `cjson.encode` writes it: as JSON.stringify does, but with `/`
 * escaped. Lines sealed ahead for a script (redis-chain-offers.ts) must be its bytes exactly.
 */
export const luaJsonString = (text: string) => JSON.stringify(text).replaceAll('/', '\\/');

/**
 * A line's body, in the Lua script's member order: the line without `prev` and `hash`. `json`
 * encodes its texts (`luaJsonString`: as the Lua twin writes them).
 */
export function chainBody(
  input: Omit<ChainLineInput, 'prev'>,
  json: (text: string) => string = JSON.stringify,
): string {
  const parts = [
    `{"v":${AUDIT_LINE_VERSION},"pauseId":${json(input.pauseId)}`,
    `,"seq":${input.seq},"at":${Math.trunc(input.at)}`,
    `,"event":${json(input.event)},"initiator":"${initiatorOf(input.actor)}"`,
    `,"actor":${json(input.actor)}`,
  ];
  if (input.callId !== '') {
    parts.push(`,"callId":${json(input.callId)}`);
    if (input.decision !== undefined) parts.push(`,"decision":${input.decision}`);
  }
  if (input.detail !== '') parts.push(`,"detail":${json(input.detail)}`);
  if (input.what !== undefined) parts.push(`,"what":${input.what}`);
  parts.push('}');
  return parts.join('');
}

/** A body's start, up to its `seq`: `prev` goes right after it. */
const BODY_HEAD = /^\{"v":\d+,"pauseId":"(?:[^"\\]|\\.)*","seq":\d+/;

/** Seals a body: the line with `prev` after its `seq` and its own `hash` last. */
export function sealChainLine(body: string, prev: string): { line: string; hash: string } {
  const found = BODY_HEAD.exec(body);
  if (found === null || !body.endsWith('}')) throw new Error('not an audit chain line body');
  const at = found[0].length;
  const text = `${body.slice(0, at)},"prev":"${prev}"${body.slice(at)}`;
  const hash = sha256(text);
  return { line: `${text.slice(0, -1)},"hash":"${hash}"}`, hash };
}

/** The memory store's line, sealed at once; returns it with its hash. */
export function chainLine(input: ChainLineInput): { line: string; hash: string } {
  return sealChainLine(chainBody(input), input.prev);
}

const HASH_SUFFIX = /,"hash":"([0-9a-f]{64})"\}$/;

/** A sealed line's members up to its `callId`, in `chainBody`'s order with `prev` after `seq`. */
const SEALED_LINE_HEAD = new RegExp(
  [
    String.raw`^\{"v":\d+,"pauseId":"(?:[^"\\]|\\.)*","seq":([1-9]\d*),"prev":"[0-9a-f]{64}"`,
    String.raw`,"at":-?\d+,"event":"(?:[^"\\]|\\.)*","initiator":"[a-z]+","actor":"(?:[^"\\]|\\.)*"`,
    String.raw`(?:,"callId":("(?:[^"\\]|\\.)*"))?[,}]`,
  ].join(''),
);

/**
 * A sealed line's `seq`, call id ('' for none) and hash, read without parsing the line (its facts
 * can be a few hundred bytes); undefined for a line not of this form.
 */
export function sealedLineFacts(
  line: string,
): { seq: number; callId: string; hash: string } | undefined {
  const head = SEALED_LINE_HEAD.exec(line);
  const hash = HASH_SUFFIX.exec(line)?.[1];
  if (head === null || hash === undefined) return undefined;
  const literal = head[2];
  if (literal === undefined) return { seq: Number(head[1]), callId: '', hash };
  const json = literal.includes('\\')
    ? parseJsonText(literal)
    : { ok: true, value: literal.slice(1, -1) };
  if (!json.ok || typeof json.value !== 'string') return undefined;
  return { seq: Number(head[1]), callId: json.value, hash };
}

/** A line's own hash and the text it was computed over; undefined when the line carries none. */
export function splitChainLine(line: string): { text: string; hash: string } | undefined {
  const found = HASH_SUFFIX.exec(line);
  if (found?.[1] === undefined) return undefined;
  return { text: `${line.slice(0, found.index)}}`, hash: found[1] };
}

/**
 * `write_chain_body(pause_key, pause_id, now_ms, event, actor, call_id, detail, decision)`: the
 * Lua twin of `chainBody`. It takes the pause's next `seq` (`auditSeq`) and appends the body to
 * the pause's unsealed bodies (UNSEALED_FIELD), which Node seals (`sealChainLine`); needs
 * `initiator_of`. `decision` is a JSON text or nil; the gate's (or the pause's) `audit:<call id>`
 * field is copied in as `what`. Reads and writes the pause hash through the script's hash cache
 * (scripts/hash-cache.lua.ts).
 */
export function luaWriteChainBody(): string {
  return `
-- What write_chain_body knows of each pause's chain after its first write in this call (seq,
-- unsealed bodies, and the immutable audit:<call id> texts it read), so that a second entry
-- reads nothing again.
local chain_known = {}
local function write_chain_body(pause_key, pause_id, now_ms, event, actor, call_id, detail, decision)
  local known = chain_known[pause_key]
  if not known then
    local head = hmget(pause_key, {'auditSeq', '${UNSEALED_FIELD}', 'audit:' .. call_id})
    known = {seq = tonumber(head[1]) or 0, unsealed = head[2], what = {[call_id] = head[3]}}
    chain_known[pause_key] = known
  elseif known.what[call_id] == nil then
    known.what[call_id] = hget(pause_key, 'audit:' .. call_id)
  end
  local seq = known.seq + 1
  local what = known.what[call_id]
  local parts = {
    '{"v":${AUDIT_LINE_VERSION},"pauseId":', cjson.encode(pause_id),
    ',"seq":', tostring(seq),
    ',"at":', string.format('%d', now_ms),
    ',"event":', cjson.encode(event),
    ',"initiator":"', initiator_of(actor), '"',
    ',"actor":', cjson.encode(actor),
  }
  if call_id ~= '' then
    parts[#parts + 1] = ',"callId":' .. cjson.encode(call_id)
    if decision then parts[#parts + 1] = ',"decision":' .. decision end
  end
  if detail ~= '' then parts[#parts + 1] = ',"detail":' .. cjson.encode(detail) end
  if what then parts[#parts + 1] = ',"what":' .. what end
  parts[#parts + 1] = '}'
  local body = table.concat(parts)
  local unsealed = body
  if known.unsealed then unsealed = known.unsealed .. '\\n' .. body end
  hset(pause_key, 'auditSeq', seq, '${UNSEALED_FIELD}', unsealed)
  known.seq, known.unsealed = seq, unsealed
  return body
end
`;
}
