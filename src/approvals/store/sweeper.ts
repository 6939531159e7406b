import { errorMessage } from '../../error-message.js';
import type { Log } from '../../log.js';
import type { Clock } from '../clock.js';
import type { ApprovalStore } from '../store.js';
import type { DueNudge } from '../store-roles/nudges.js';
import type { ExpiredGate } from '../store-roles/pause-sweeps.js';
import type { RunIntent } from '../store-roles/run-intents.js';
import { DEFAULT_LIMIT } from './rules.js';

export interface SweeperOptions {
  store: Pick<ApprovalStore, 'sweeps' | 'leases' | 'runs' | 'nudges' | 'audit'>;
  /** Pause between the end of one tick and the start of the next. */
  intervalMs: number;
  /** The clock every store call is given. */
  now: Clock;
  /** Told of the gates this replica expired (to update their cards). */
  onExpired: (gates: ExpiredGate[]) => Promise<void>;
  /** Told of pauses whose resume is due (to claim and resume them). */
  onResumeDue: (pauseIds: string[]) => Promise<void>;
  /**
   * Pauses recorded without a card (their replica died before posting it), claimed for this
   * replica to post. Absent: not looked for.
   */
  cardless?: {
    owner: string;
    /** How old such a pause must be: longer than a live replica may take to post a card. */
    graceMs: number;
    leaseMs: number;
    onCardless: (pauseIds: string[]) => Promise<void>;
  };
  /**
   * Accepted `/agent` runs whose replica died (their intent's lease lapsed), claimed for this
   * replica to tell their requesters. Absent: not looked for.
   */
  deadRuns?: {
    owner: string;
    leaseMs: number;
    onDeadRuns: (intents: RunIntent[]) => Promise<void>;
  };
  /**
   * Reminders and escalations due, each claimed for `leaseMs` (a replica that dies with one
   * leaves it to another once the lease ends); the handler finishes them. Absent: not looked for.
   */
  nudges?: {
    leaseMs: number;
    onNudges: (nudges: DueNudge[]) => Promise<void>;
  };
  /** The workflow's own work on every tick (hand-overs that started or ended). Absent: none. */
  onTick?: () => Promise<void>;
  /** The store-wide audit drops entries older than this, checked once a minute. Absent: kept. */
  auditRetentionMs?: number;
  log: Pick<Log, 'error' | 'debug'>;
  /** Entries handled per store call. Default 100. */
  batchSize?: number;
}

export interface Sweeper {
  /** Stops ticking; resolves once the tick in flight, if any, has finished. */
  stop(): Promise<void>;
}

/** How often the audit is trimmed to its retention: its oldest entries age by the day. */
const AUDIT_TRIM_EVERY_MS = 60_000;

/** Expiry batches per tick, so that a backlog drains quickly but a tick still ends. */
const MAX_BATCHES_PER_TICK = 20;

/**
 * Applies due expiries and hands due resumes over, every `intervalMs`. Any number of replicas
 * may run one at once: the store expires each gate exactly once and returns it to the replica
 * that did, and a due resume is claimed by one of them. Ticks never overlap (the next is
 * scheduled when one ends), and an error in a tick is logged without stopping the next.
 */
export function startSweeper(options: SweeperOptions): Sweeper {
  const { store, intervalMs, now, onExpired, onResumeDue, log } = options;
  const batchSize = options.batchSize ?? DEFAULT_LIMIT;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  const expire = async () => {
    for (let batch = 0; batch < MAX_BATCHES_PER_TICK && !stopped; batch++) {
      const gates = await store.sweeps.expireDue(now(), batchSize);
      if (gates.length > 0) {
        log.debug('expired gates', { count: gates.length });
        await report('handling expired gates', () => onExpired(gates));
      }
      if (gates.length < batchSize) return;
    }
  };

  const resume = async () => {
    const pauseIds = await store.leases.dueResumes(now(), batchSize);
    if (pauseIds.length > 0) await onResumeDue(pauseIds);
  };

  const report = async (doing: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      log.error(`sweeper: ${doing} failed`, { error: errorMessage(error) });
    }
  };

  const postMissingCards = async () => {
    const cardless = options.cardless;
    if (cardless === undefined) return;
    const { owner, graceMs, leaseMs } = cardless;
    const pauseIds = await store.sweeps.claimCardless({ now: now(), graceMs, owner, leaseMs });
    if (pauseIds.length > 0) await cardless.onCardless(pauseIds);
  };

  const tellOfDeadRuns = async () => {
    const deadRuns = options.deadRuns;
    if (deadRuns === undefined) return;
    const { owner, leaseMs } = deadRuns;
    const intents = await store.runs.claimDeadRuns({
      now: now(),
      owner,
      leaseMs,
      limit: batchSize,
    });
    if (intents.length > 0) await deadRuns.onDeadRuns(intents);
  };

  const nudge = async () => {
    const handler = options.nudges;
    if (handler === undefined) return;
    const due = await store.nudges.claimDueNudges({
      now: now(),
      leaseMs: handler.leaseMs,
      limit: batchSize,
    });
    if (due.length > 0) await handler.onNudges(due);
  };

  let trimmedAt = Number.NEGATIVE_INFINITY;
  const trimAudit = async () => {
    const retention = options.auditRetentionMs;
    const at = now();
    if (retention === undefined || at - trimmedAt < AUDIT_TRIM_EVERY_MS) return;
    trimmedAt = at;
    await store.audit.trimAudit(at - retention);
  };

  const tick = async () => {
    await report('expiring due gates', expire);
    if (!stopped) await report('sending due reminders', nudge);
    if (!stopped) await report('handing over due resumes', resume);
    if (!stopped) await report('posting missing cards', postMissingCards);
    if (!stopped) await report('telling of runs that died', tellOfDeadRuns);
    if (!stopped) await report('trimming the audit to its retention', trimAudit);
    const onTick = options.onTick;
    if (!stopped && onTick !== undefined)
      await report('redrawing hand-overs started or ended', onTick);
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = tick().finally(() => {
        inFlight = undefined;
        schedule(intervalMs);
      });
    }, delayMs);
    // A sweeper alone does not keep the process alive.
    timer.unref();
  };

  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
