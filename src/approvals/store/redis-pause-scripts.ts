import type { PauseView } from '../records.js';
import { StoreError } from '../store.js';
import type { StoreKeys } from './keys.js';
import type { RecentViews } from './recent-views.js';
import { type AuditSealer, entryOf } from './redis-audit-seal.js';
import type { ChainOffers } from './redis-chain-offers.js';
import { type RedisClient, redisCall, toStoreError } from './redis-connection.js';
import type { RedisIndexes } from './redis-indexes.js';
import { decodeCallIds, decodeView } from './redis-records.js';
import type { ScriptCodeName } from './scripts/codes.js';
import { CREATE_PAUSE_LUA } from './scripts/create-pause.lua.js';
import { LuaScript } from './scripts/lua-script.js';
import {
  type ArgSpec,
  type ArgsOf,
  NO_SEAL_OFFER,
  type PauseScript,
  type SealOffer,
} from './scripts/pause-script.js';
import { READ_PAUSE_LUA } from './scripts/read-pause.lua.js';
import {
  type ChainState,
  type PauseScriptReply,
  parsePauseScriptReply,
  type ScriptAuditEntry,
} from './scripts/reply.js';

/** Call ids of a pause never change: a replica keeps the latest ones to build script keys. */
const CALL_ID_CACHE_SIZE = 10_000;

/**
 * Pauses per part of a batch script call (runBatch): small enough that Redis runs one part while
 * Node finishes the one before, large enough that a sweep of 1,000 takes few calls.
 */
export const BATCH_PART = 250;

export const SCRIPTS = {
  createPause: new LuaScript('create_pause', CREATE_PAUSE_LUA),
  readPause: new LuaScript('read_pause', READ_PAUSE_LUA),
};

/** One pause's part of a batch script call (runBatch). */
export interface BatchCall {
  pauseId: string;
  callIds: readonly string[];
  /** True when callIds is a guess (no call ids cached), remembered if right. */
  guessed: boolean;
  /** The pause's own ARGV, after its key count. */
  args: (string | number)[];
  /** Lines sealed ahead, as also passed in args ('' for none). */
  offer: SealOffer;
}

/** What a per-pause script answered, with the pause as the script left it. */
export interface PauseOutcome extends PauseScriptReply {
  /** The entries this call sealed (redis-audit-seal.ts), for the store-wide audit. */
  audit: ScriptAuditEntry[];
  view: PauseView | undefined;
}

export const NOT_FOUND: PauseOutcome = {
  code: 'NOT_FOUND',
  info: [],
  audit: [],
  pauseValues: [],
  gateValues: [],
  chain: undefined,
  view: undefined,
};

/**
 * What every role running per-pause scripts on Redis shares: one connection and layout, the
 * global indexes kept around the scripts, the sealer of the audit lines they write, and the
 * cache of each pause's call ids (which build the scripts' keys).
 */
export interface PauseScriptContext {
  redis: RedisClient;
  keys: StoreKeys;
  indexes: RedisIndexes;
  sealer: AuditSealer;
  retentionMs: number;
  callIdCache: Map<string, readonly string[]>;
  /** What this replica knows of pauses' chains, to seal a transition's lines ahead. */
  chains: ChainOffers;
  /** The pauses as this replica last saw them (`PauseStore.recentPause`). */
  views: RecentViews;
}

/**
 * The runner of per-pause scripts (see redis-store.ts for the model) that the pause, lease and
 * sweep roles build on: it supplies the pause's call ids, reloads them once when stale, parses
 * the reply and seals the audit lines the script wrote.
 */
export abstract class RedisPauseScripts {
  protected readonly redis: RedisClient;
  protected readonly keys: StoreKeys;
  protected readonly indexes: RedisIndexes;
  protected readonly retentionMs: number;
  private readonly sealer: AuditSealer;
  private readonly callIdCache: Map<string, readonly string[]>;
  protected readonly chains: ChainOffers;
  protected readonly views: RecentViews;

  constructor(context: PauseScriptContext) {
    this.redis = context.redis;
    this.keys = context.keys;
    this.indexes = context.indexes;
    this.retentionMs = context.retentionMs;
    this.sealer = context.sealer;
    this.callIdCache = context.callIdCache;
    this.chains = context.chains;
    this.views = context.views;
  }

  /**
   * Runs a per-pause script on the pause's keys. `args` gets the pause's call ids and returns
   * the script's ARGV, or undefined when the call names no gate of the pause (not found). Stale
   * cached call ids are reloaded once.
   *
   * `guess`: the call id the caller names (a click, an expiry entry). With no call ids cached,
   * the script first runs as if the pause held that one gate, as most pauses do: right, it saves
   * reading and parsing the pause record first (a round trip); wrong, the script answers
   * KEYS_MISMATCH having written nothing, and the real call ids are read.
   */
  /** `onPause` for a script defined with typed arguments (scripts/pause-script.ts). */
  protected onTypedPause<S extends ArgSpec>(
    script: PauseScript<S, unknown>,
    pauseId: string,
    args: (callIds: readonly string[]) => ArgsOf<S> | undefined,
    guess?: string,
    offer?: SealOffer,
  ): Promise<PauseOutcome> {
    return this.onPause(
      script.lua,
      pauseId,
      (callIds) => {
        const values = args(callIds);
        return values && script.encode(values);
      },
      guess,
      offer,
    );
  }

  protected async onPause(
    script: LuaScript,
    pauseId: string,
    args: (callIds: readonly string[]) => (string | number)[] | undefined,
    guess?: string,
    offer?: SealOffer,
  ): Promise<PauseOutcome> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const guessed =
        attempt === 0 && guess !== undefined && !this.callIdCache.has(pauseId)
          ? [guess]
          : undefined;
      const callIds = guessed ?? (await this.callIdsOf(pauseId));
      const argv = callIds && args(callIds);
      if (callIds === undefined || argv === undefined) return NOT_FOUND;
      const outcome = await this.runScript(script, pauseId, callIds, argv, offer);
      if (outcome.code === 'NOT_FOUND') {
        this.callIdCache.delete(pauseId);
        this.views.forget(pauseId);
        return outcome;
      }
      if (outcome.view !== undefined) {
        if (guessed) this.remember(pauseId, outcome.view.pause.callIds);
        return outcome;
      }
      this.callIdCache.delete(pauseId);
    }
    const key = this.keys.pause(pauseId);
    throw new StoreError('corrupt_record', `${key}: its gates do not match its call ids`);
  }

  /** `view` is undefined when the pause's call ids are not `callIds` (KEYS_MISMATCH). */
  protected async runScript(
    script: LuaScript,
    pauseId: string,
    callIds: readonly string[],
    args: (string | number)[],
    offer: SealOffer = NO_SEAL_OFFER,
  ): Promise<PauseOutcome> {
    const keys = this.keys.scriptKeys(pauseId, callIds);
    const raw = await redisCall(`${script.name} on ${keys[0]}`, () =>
      script.run(this.redis, keys, args),
    );
    const reply = parsePauseScriptReply(script.name, raw);
    if (reply.code === 'CORRUPT') throw corruptError(reply, keys, pauseId);
    const view =
      reply.pauseValues.length === 0
        ? undefined
        : decodeView(keys, callIds, reply.pauseValues, reply.gateValues);
    if (view !== undefined) this.learn(view, reply);
    const audit = await this.sealed(pauseId, keys, reply, offer);
    return { ...reply, audit, view };
  }

  /**
   * Runs a batch script (e.g. expire_gates) whose reply is one per-pause script reply per call,
   * on a single Redis (all keys on one node), in parts of `BATCH_PART` calls, and seals each
   * part's lines not sealed ahead in one seal_audits call. Each part is sent once the part before
   * has answered, so that Redis runs it while Node reads, seals and finishes the one before
   * (Redis answers a connection only after running every command it read together, so parts
   * sent at once would all run before any answer came). `onPart` gets each part's outcomes, in
   * order, with the index of its first call: per call its outcome, or the StoreError of a corrupt
   * record or of the part's failed call; KEYS_MISMATCH and NOT_FOUND come back as outcomes
   * without a view (its cached call ids dropped), for the caller to run that pause alone.
   * Resolves once every part's `onPart` has.
   */
  protected async runBatch(
    script: LuaScript,
    head: (string | number)[],
    calls: readonly BatchCall[],
    onPart: (outcomes: (PauseOutcome | StoreError)[], first: number) => Promise<void>,
  ): Promise<void> {
    const send = (first: number) => {
      const part = calls.slice(first, first + BATCH_PART);
      const keysOf = part.map(({ pauseId, callIds }) => this.keys.scriptKeys(pauseId, callIds));
      const argv = [...head, ...part.flatMap(({ args }, i) => [keysOf[i]?.length ?? 0, ...args])];
      const raw = redisCall(`${script.name} on ${part.length} pauses`, () =>
        script.run(this.redis, keysOf.flat(), argv),
      ).then(
        (reply) => ({ ok: true as const, reply }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      return { first, part, keysOf, raw };
    };
    const finishing: Promise<void>[] = [];
    let next = calls.length > 0 ? send(0) : undefined;
    while (next !== undefined) {
      const { first, part, keysOf, raw } = next;
      const answer = await raw;
      next = first + BATCH_PART < calls.length ? send(first + BATCH_PART) : undefined;
      const outcomes = (
        answer.ok
          ? this.settleBatch(script, part, keysOf, answer.reply)
          : Promise.reject(answer.error)
      ).catch((error: unknown) => part.map(() => toStoreError(error, `run ${script.name}`)));
      finishing.push(outcomes.then((settled) => onPart(settled, first)));
    }
    const finished = await Promise.allSettled(finishing);
    const failed = finished.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  private async settleBatch(
    script: LuaScript,
    calls: readonly BatchCall[],
    keysOf: readonly string[][],
    raw: unknown,
  ): Promise<(PauseOutcome | StoreError)[]> {
    if (!Array.isArray(raw) || raw.length !== calls.length) {
      throw new StoreError('script', `script ${script.name} did not reply once per pause`);
    }
    const outcomes: (PauseOutcome | StoreError)[] = [];
    const toSeal: { at: number; pauseKey: string; chain: ChainState }[] = [];
    for (const [i, call] of calls.entries()) {
      const keys = keysOf[i] ?? [];
      let reply: PauseScriptReply;
      let view: PauseView | undefined;
      try {
        // A pause whose record does not read fails alone; its lines are sealed by its next change.
        reply = parsePauseScriptReply(script.name, raw[i]);
        if (reply.code === 'CORRUPT') throw corruptError(reply, keys, call.pauseId);
        view =
          reply.pauseValues.length === 0
            ? undefined
            : decodeView(keys, call.callIds, reply.pauseValues, reply.gateValues);
      } catch (error) {
        outcomes.push(toStoreError(error, `read ${script.name}'s reply for ${keys[0]}`));
        continue;
      }
      if (view === undefined) this.callIdCache.delete(call.pauseId);
      else {
        this.learn(view, reply);
        if (call.guessed) this.remember(call.pauseId, view.pause.callIds);
      }
      let audit: ScriptAuditEntry[] = [];
      const chain = reply.chain;
      if (chain?.sealedAhead) audit = this.sealedAhead(call.pauseId, call.offer);
      else if (chain !== undefined) {
        toSeal.push({ at: i, pauseKey: keys[0] ?? '', chain });
      }
      outcomes.push({ ...reply, audit, view });
    }
    const sealed = await this.sealer.sealAll(toSeal);
    for (const [j, { at }] of toSeal.entries()) {
      const outcome = outcomes[at];
      const entries = sealed[j] ?? [];
      if (outcome === undefined || outcome instanceof StoreError) continue;
      outcome.audit = entries;
      this.learnSealed(calls[at]?.pauseId ?? '', entries);
    }
    return outcomes;
  }

  /**
   * The audit entries this call sealed, which are the ones it mirrors (redis-audit-seal.ts):
   * the lines the script appended from the offer, or else the ones sealed after it.
   */
  private async sealed(
    pauseId: string,
    keys: readonly string[],
    reply: PauseScriptReply,
    offer: SealOffer,
  ): Promise<ScriptAuditEntry[]> {
    const chain = reply.chain;
    if (chain === undefined) return [];
    if (chain.sealedAhead) return this.sealedAhead(pauseId, offer);
    const entries = await this.sealer.seal(keys[0] ?? '', chain);
    this.learnSealed(pauseId, entries);
    return entries;
  }

  /** What a reply showed of a pause: its chain's tallies, and the view a click may start from. */
  private learn(view: PauseView, reply: PauseScriptReply): void {
    this.chains.learnView(view);
    this.views.remember(view, replyBytes(reply));
  }

  /** The entries of the lines a script appended from the offer. */
  private sealedAhead(pauseId: string, offer: SealOffer): ScriptAuditEntry[] {
    const lines = offer.sealLines.split('\n');
    const bodies = offer.sealBodies.split('\n');
    this.chains.learn(pauseId, lines);
    return lines.map((line, i) => entryOf(bodies[i] ?? '', line));
  }

  private learnSealed(pauseId: string, entries: readonly ScriptAuditEntry[]): void {
    // None: another replica sealed them, or the seal failed; either way the chain moved unseen.
    if (entries.length === 0) this.chains.forget(pauseId);
    else
      this.chains.learn(
        pauseId,
        entries.map((entry) => entry.line),
      );
  }

  /** The pause's call ids this replica has cached, if any. */
  protected cachedCallIds(pauseId: string): readonly string[] | undefined {
    return this.callIdCache.get(pauseId);
  }

  private async callIdsOf(pauseId: string): Promise<readonly string[] | undefined> {
    const cached = this.callIdCache.get(pauseId);
    if (cached) return cached;
    const key = this.keys.pause(pauseId);
    const record = await redisCall(`read ${key}`, () => this.redis.hget(key, 'record'));
    if (record === null) return undefined;
    const callIds = decodeCallIds(key, record);
    this.remember(pauseId, callIds);
    return callIds;
  }

  protected remember(pauseId: string, callIds: readonly string[]): void {
    this.callIdCache.delete(pauseId);
    this.callIdCache.set(pauseId, callIds);
    if (this.callIdCache.size > CALL_ID_CACHE_SIZE) {
      const oldest = this.callIdCache.keys().next();
      if (!oldest.done) this.callIdCache.delete(oldest.value);
    }
  }
}

/** The error a CORRUPT reply stands for, naming the key the script found garbled. */
function corruptError(reply: PauseScriptReply, keys: readonly string[], pauseId: string) {
  const [index = '0', problem = ''] = reply.info;
  const key = keys[Number(index) - 1] ?? `a key of pause ${pauseId}`;
  return new StoreError('corrupt_record', `${key} does not hold a valid record: ${problem}`);
}

export function unexpected(script: LuaScript, code: ScriptCodeName): StoreError {
  return new StoreError('script', `script ${script.name} answered ${code}, which it never should`);
}

/** The size of the records a reply's view is decoded from (their text, as Redis sent it). */
function replyBytes(reply: Pick<PauseScriptReply, 'pauseValues' | 'gateValues'>): number {
  let bytes = 0;
  for (const value of reply.pauseValues) bytes += value?.length ?? 0;
  for (const gate of reply.gateValues) for (const value of gate) bytes += value?.length ?? 0;
  return bytes;
}
