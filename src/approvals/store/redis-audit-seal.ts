import { z } from 'zod';
import { errorMessage } from '../../error-message.js';
import { parseJsonText } from '../../json.js';
import type { Log } from '../../log.js';
import { AUDIT_GENESIS, sealChainLine } from './audit-chain.js';
import type { RedisClient } from './redis-connection.js';
import { LuaScript } from './scripts/lua-script.js';
import type { ChainState, ScriptAuditEntry } from './scripts/reply.js';
import { SEAL_AUDIT_LUA, SEAL_AUDITS_LUA } from './scripts/seal-audit.lua.js';

const SEAL_AUDIT = new LuaScript('seal_audit', SEAL_AUDIT_LUA);
const SEAL_AUDITS = new LuaScript('seal_audits', SEAL_AUDITS_LUA);
/** Rounds of sealing again after another replica moved the head: each round seals more. */
const SEAL_ROUNDS = 3;

const sealReplySchema = z.union([
  z.tuple([z.literal(1)]),
  z.tuple([z.literal(0)]),
  z.tuple([z.literal(2), z.string(), z.string()]),
]);
const sealAllReplySchema = z.array(sealReplySchema);
const bodyFieldsSchema = z.object({
  event: z.string(),
  actor: z.string(),
  callId: z.string().optional(),
  detail: z.string().optional(),
});

/**
 * Seals a pause's chain line bodies after the script that wrote them (audit-chain.ts): computes
 * each line's `prev` and `hash` in Node and moves the chain head past them with a
 * compare-and-set. Returns the entries this call sealed, for the store-wide audit, the one place
 * a line is kept: whoever seals a line copies it there, so a line sealed by another replica
 * racing this one is copied once, by that replica. The transition is recorded whatever happens
 * here: a failure is logged, and its bodies are sealed by the pause's next transition.
 */
export class AuditSealer {
  constructor(
    private readonly redis: RedisClient,
    private readonly log: Pick<Log, 'warn'> | undefined,
  ) {}

  async seal(pauseKey: string, state: ChainState): Promise<ScriptAuditEntry[]> {
    let chain = state;
    try {
      for (let round = 0; round < SEAL_ROUNDS && chain.unsealed !== ''; round++) {
        const { bodies, head, lines } = sealBodies(chain);
        const raw = await SEAL_AUDIT.run(this.redis, [pauseKey], [chain.head, head, lines.length]);
        const reply = sealReplySchema.parse(raw);
        if (reply[0] === 1) return bodies.map((body, i) => entryOf(body, lines[i] ?? ''));
        if (reply[0] === 0) return [];
        chain = { head: reply[1], unsealed: reply[2] };
      }
      if (chain.unsealed !== '') {
        this.log?.warn('audit lines left unsealed: the chain head kept moving', {
          key: pauseKey,
        });
      }
    } catch (error) {
      this.log?.warn('could not seal audit lines (the next transition seals them)', {
        key: pauseKey,
        error: errorMessage(error),
      });
    }
    return [];
  }

  /**
   * `seal` for the chains of many pauses on one node (a single Redis), in one call of
   * seal_audits: each pause's lines are a compare-and-set of their own, and a pause whose head
   * moved meanwhile is sealed again on its own, as `seal` does.
   */
  async sealAll(
    chains: readonly { pauseKey: string; chain: ChainState }[],
  ): Promise<ScriptAuditEntry[][]> {
    if (chains.length === 0) return [];
    if (chains.length === 1) {
      const [only] = chains;
      return only ? [await this.seal(only.pauseKey, only.chain)] : [];
    }
    const sealed = chains.map(({ chain }) => sealBodies(chain));
    let replies: z.infer<typeof sealAllReplySchema>;
    try {
      const keys = chains.map(({ pauseKey }) => pauseKey);
      const argv = chains.flatMap(({ chain }, i) => {
        const { head, lines } = sealed[i] ?? { head: '', lines: [] };
        return [chain.head, head, lines.length];
      });
      replies = sealAllReplySchema.parse(await SEAL_AUDITS.run(this.redis, keys, argv));
      if (replies.length !== chains.length) throw new Error('seal_audits: one reply per pause');
    } catch (error) {
      this.log?.warn('could not seal audit lines (the next transition seals them)', {
        key: `${chains.length} pauses`,
        error: errorMessage(error),
      });
      return chains.map(() => []);
    }
    return Promise.all(
      chains.map(async ({ pauseKey }, i) => {
        const reply = replies[i];
        const { bodies = [], lines = [] } = sealed[i] ?? {};
        if (reply === undefined || reply[0] === 0) return [];
        if (reply[0] === 1) return bodies.map((body, j) => entryOf(body, lines[j] ?? ''));
        return this.seal(pauseKey, { head: reply[1], unsealed: reply[2] });
      }),
    );
  }
}

/** A chain's unsealed bodies, their sealed lines in Node (audit-chain.ts) and the head after. */
function sealBodies(chain: ChainState): { bodies: string[]; head: string; lines: string[] } {
  if (chain.unsealed === '') return { bodies: [], head: chain.head, lines: [] };
  const bodies = chain.unsealed.split('\n');
  let head = chain.head === '' ? AUDIT_GENESIS : chain.head;
  const lines = bodies.map((body) => {
    const sealed = sealChainLine(body, head);
    head = sealed.hash;
    return sealed.line;
  });
  return { bodies, head, lines };
}

/** The plain fields of a sealed line, as the store-wide audit keeps them beside it. */
export function entryOf(body: string, line: string): ScriptAuditEntry {
  const json = parseJsonText(body);
  const fields = bodyFieldsSchema.parse(json.ok ? json.value : undefined);
  return {
    event: fields.event,
    actor: fields.actor,
    callId: fields.callId ?? '',
    detail: fields.detail ?? '',
    line,
  };
}
