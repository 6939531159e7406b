import { randomUUID } from 'node:crypto';
import type { Clock } from '../approvals/clock.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { ApprovalCards } from './cards.js';
import { refuseIfReported } from './hand-overs.js';

/**
 * Poll mode: nothing is sent, the agent reads the decision and resumes itself. The resume is
 * marked `resumed` (so that the sweeper stops handing it over), unless the agent has said it
 * refused it.
 */
export class PollResumes {
  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'leases' | 'reports' | 'notes'>;
      cards: Pick<ApprovalCards, 'refresh'>;
      clock: Clock;
    },
  ) {}

  async finish(pauseId: string): Promise<void> {
    const { store, clock } = this.deps;
    const owner = `${randomUUID()}:poll`;
    const now = clock();
    const claim = await store.leases.claimResume({ pauseId, owner, now, leaseMs: 60_000 });
    if (claim.kind !== 'claimed') return;
    await store.leases.markResumed({ pauseId, owner, now });
    await refuseIfReported(store, claim.view, clock());
    await this.deps.cards.refresh(pauseId);
  }
}
