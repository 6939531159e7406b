import type { Clock } from '../approvals/clock.js';
import type { ApprovalStore } from '../approvals/store.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';

export interface LeaseHeartbeat {
  stop(): void;
}

/**
 * Renews a resume's lease every third of its length while the resume streams, so that leases
 * can be short: a replica that dies stops renewing, and another takes its resume over within
 * one lease and one sweep, instead of after the longest run the agent may take. A renewal that
 * fails is tried again at the next beat; one that finds the lease taken over stops.
 */
export function startLeaseHeartbeat(
  deps: { store: Pick<ApprovalStore, 'leases'>; clock: Clock; log: Log },
  lease: { pauseId: string; owner: string; leaseMs: number },
): LeaseHeartbeat {
  let stopped = false;
  const beat = async () => {
    try {
      const result = await deps.store.leases.renewLease({ ...lease, now: deps.clock() });
      if (result.kind !== 'renewed' && !stopped) {
        deps.log.warn('the resume lease passed to another replica while streaming', {
          pauseId: lease.pauseId,
          outcome: result.kind,
        });
        stop();
      }
    } catch (error) {
      deps.log.warn('could not renew the resume lease; trying again', {
        pauseId: lease.pauseId,
        error: errorMessage(error),
      });
    }
  };
  const timer = setInterval(() => void beat(), Math.max(100, Math.floor(lease.leaseMs / 3)));
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return { stop };
}
