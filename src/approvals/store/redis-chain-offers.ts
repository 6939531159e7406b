import { createHash } from 'node:crypto';
import type { GatePolicy, PauseView, ResumeStatus } from '../records.js';
import {
  AUDIT_GENESIS,
  chainBody,
  luaJsonString,
  sealChainLine,
  sealedLineFacts,
} from './audit-chain.js';
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
  /** What its policy does when its time runs out. */
  onExpiry: GatePolicy['onExpiry'];
  /** Its undo window (0 for none): a person's deciding approval holds the resume that long. */
  undoMs: number;
}

/** What the last reply showed of a pause: its pending gates (in call id order) and its resume. */
export interface PauseSeen {
  pending: Map<string, GateTally>;
  resume: ResumeStatus;
}

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
  private readonly seen = new Map<string, PauseSeen>();

  /** Learns a pause's pending gates and resume from the view a reply carried. */
  learnView(view: PauseView): void {
    const pending = new Map<string, GateTally>();
    for (const gate of view.gates) {
      if (gate.state !== 'pending') continue;
      const approvals = gate.votes.filter((vote) => vote.choice === 'approve').length;
      const { quorum, onExpiry, undoWindowMs = 0 } = gate.policy;
      pending.set(gate.confirmationCallId, { approvals, quorum, onExpiry, undoMs: undoWindowMs });
    }
    this.seen.delete(view.pause.id);
    this.seen.set(view.pause.id, { pending, resume: view.pause.resume });
    if (this.seen.size > KNOWN_CHAINS) {
      const oldest = this.seen.keys().next();
      if (!oldest.done) this.seen.delete(oldest.value);
    }
  }

  /** The pause as the last reply showed it; undefined when not seen. */
  lastSeen(pauseId: string): PauseSeen | undefined {
    return this.seen.get(pauseId);
  }

  /** Learns a pause's chain from lines just sealed, oldest first. */
  learn(pauseId: string, lines: readonly string[]): void {
    const last = lines.at(-1);
    if (last === undefined) return;
    const chain = this.known.get(pauseId) ?? { head: '', seq: 0, what: new Map() };
    for (const line of lines) {
      const facts = sealedLineFacts(line);
      if (facts === undefined) {
        this.forget(pauseId);
        return;
      }
      const at = line.indexOf(WHAT_MEMBER);
      const what = at < 0 ? null : line.slice(at + WHAT_MEMBER.length, line.length - HASH_TAIL);
      chain.what.set(facts.callId, what);
      chain.head = facts.hash;
      chain.seq = facts.seq;
    }
    this.known.delete(pauseId);
    this.known.set(pauseId, chain);
    if (this.known.size > KNOWN_CHAINS) {
      const oldest = this.known.keys().next();
      if (!oldest.done) this.known.delete(oldest.value);
    }
  }

  /**
   * Learns a pause's chain from a read (read_pause): its head and seq, every line sealed, and
   * what the pause and each gate are. A chain known further along is kept.
   */
  learnRead(
    pauseId: string,
    read: { head: string; seq: number; whats: readonly (readonly [string, string | null])[] },
  ): void {
    const known = this.known.get(pauseId);
    if (known !== undefined && known.seq >= read.seq) return;
    this.known.delete(pauseId);
    this.known.set(pauseId, { head: read.head, seq: read.seq, what: new Map(read.whats) });
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
    this.seen.delete(pauseId);
  }

  /** The sealed lines of `planned`, written at `now`, after the chain as last learnt. */
  offer(pauseId: string, now: number, planned: readonly PlannedEntry[]): SealOffer {
    const chain = this.known.get(pauseId);
    if (chain === undefined) return NO_SEAL_OFFER;
    return offerAfter(chain, pauseId, now, planned);
  }

  /**
   * The sealed lines of `planned` as the first of a new pause's chain (create_pause), `whats`
   * being each gate's (and the pause's, under '') `what` text. Nothing is learnt until the lines
   * are sealed: a pause that already existed writes none.
   */
  offerNew(
    pauseId: string,
    now: number,
    planned: readonly PlannedEntry[],
    whats: readonly (readonly [string, string])[],
  ): SealOffer {
    return offerAfter({ head: '', seq: 0, what: new Map(whats) }, pauseId, now, planned);
  }
}

function offerAfter(
  chain: KnownChain,
  pauseId: string,
  now: number,
  planned: readonly PlannedEntry[],
): SealOffer {
  if (planned.length === 0) return NO_SEAL_OFFER;
  // The first line of a chain follows the genesis; its head field is still unset ('').
  let head = chain.head === '' ? AUDIT_GENESIS : chain.head;
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
  const sealBodies = bodies.join('\n');
  return {
    sealAfter: chain.head,
    sealHead: head,
    sealBodies,
    sealDigest: createHash('sha1').update(sealBodies).digest('hex'),
    sealLines: lines.join('\n'),
  };
}
