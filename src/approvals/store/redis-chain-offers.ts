import { z } from 'zod';
import { parseJsonText } from '../../json.js';
import type { PauseView } from '../records.js';
import { chainBody, luaJsonString, sealChainLine } from './audit-chain.js';
import { NO_SEAL_OFFER, type SealOffer } from './scripts/pause-script.js';

/** An audit entry a transition is expected to write, as the script's `audit` call takes it. */
export interface PlannedEntry {
  event: string;
  actor: string;
  callId: string;
  detail: string;
  /** The gate's decision as the JSON text the script is given, once the gate has one. */
  decision?: string | undefined;
}

interface KnownChain {
  head: string;
  seq: number;
  /** Each gate's `what` text as its lines carry it (null: its lines carry none). */
  what: Map<string, string | null>;
}

/** A pending gate's approvals so far and its quorum, as the last reply showed them. */
export interface GateTally {
  approvals: number;
  quorum: number;
}

const sealedLineSchema = z.object({
  seq: z.number().int().positive(),
  callId: z.string().optional(),
  hash: z.string(),
});
/** A sealed line ends with `,"hash":"<64 hex>"}`, right after its `what` if it has one. */
const HASH_TAIL = ',"hash":"'.length + 64 + '"}'.length;
const WHAT_MEMBER = ',"what":';
/** Pauses whose chains a replica keeps: the ones it touched last. */
const KNOWN_CHAINS = 10_000;

/**
 * The chain head, `seq` and gates' `what` of the pauses this replica sealed lines for last, so
 * that a transition can seal its own lines ahead (audit-chain.ts) and save the separate seal's
 * call. A guess is only ever an offer: the script checks the head and the bodies before it
 * appends anything, so a chain another replica moved costs the separate seal, never a wrong line.
 */
export class ChainOffers {
  private readonly known = new Map<string, KnownChain>();
  private readonly tallies = new Map<string, Map<string, GateTally>>();

  /** Learns the pending gates' tallies of a pause from the view a reply carried. */
  learnView(view: PauseView): void {
    const tallies = new Map<string, GateTally>();
    for (const gate of view.gates) {
      if (gate.state !== 'pending') continue;
      const approvals = gate.votes.filter((vote) => vote.choice === 'approve').length;
      tallies.set(gate.confirmationCallId, { approvals, quorum: gate.policy.quorum });
    }
    this.tallies.delete(view.pause.id);
    this.tallies.set(view.pause.id, tallies);
    if (this.tallies.size > KNOWN_CHAINS) {
      const oldest = this.tallies.keys().next();
      if (!oldest.done) this.tallies.delete(oldest.value);
    }
  }

  /** A pending gate's tally as last seen; undefined when not seen pending. */
  tally(pauseId: string, callId: string): GateTally | undefined {
    return this.tallies.get(pauseId)?.get(callId);
  }

  /** Learns a pause's chain from lines just sealed into its trail, oldest first. */
  learn(pauseId: string, lines: readonly string[]): void {
    const last = lines.at(-1);
    if (last === undefined) return;
    const chain = this.known.get(pauseId) ?? { head: '', seq: 0, what: new Map() };
    for (const line of lines) {
      const json = parseJsonText(line);
      const parsed = sealedLineSchema.safeParse(json.ok ? json.value : undefined);
      if (!parsed.success) {
        this.forget(pauseId);
        return;
      }
      const at = line.indexOf(WHAT_MEMBER);
      const what = at < 0 ? null : line.slice(at + WHAT_MEMBER.length, line.length - HASH_TAIL);
      chain.what.set(parsed.data.callId ?? '', what);
      chain.head = parsed.data.hash;
      chain.seq = parsed.data.seq;
    }
    this.known.delete(pauseId);
    this.known.set(pauseId, chain);
    if (this.known.size > KNOWN_CHAINS) {
      const oldest = this.known.keys().next();
      if (!oldest.done) this.known.delete(oldest.value);
    }
  }

  /** Learns what each gate of a pause is (its `audit:<call id>` text) once it is recorded. */
  learnWhat(pauseId: string, whats: readonly (readonly [string, string])[]): void {
    const chain = this.known.get(pauseId);
    if (chain === undefined) return;
    for (const [callId, what] of whats) chain.what.set(callId, what);
  }

  forget(pauseId: string): void {
    this.known.delete(pauseId);
    this.tallies.delete(pauseId);
  }

  /** The sealed lines of `planned`, written at `now`, after the chain as last learnt. */
  offer(pauseId: string, now: number, planned: readonly PlannedEntry[]): SealOffer {
    const chain = this.known.get(pauseId);
    if (chain === undefined || planned.length === 0) return NO_SEAL_OFFER;
    let head = chain.head;
    const bodies: string[] = [];
    const lines: string[] = [];
    for (const [i, entry] of planned.entries()) {
      const what = chain.what.get(entry.callId);
      if (what === undefined) return NO_SEAL_OFFER;
      const input = { pauseId, seq: chain.seq + i + 1, at: now, ...entry, what: what ?? undefined };
      const body = chainBody(input, luaJsonString);
      const sealed = sealChainLine(body, head);
      bodies.push(body);
      lines.push(sealed.line);
      head = sealed.hash;
    }
    return {
      sealAfter: chain.head,
      sealHead: head,
      sealBodies: bodies.join('\n'),
      sealLines: lines.join('\n'),
    };
  }
}
