import type { RunStatus } from '../../approvals/run-status.js';
import { type KnownBlock, mrkdwn } from '../codecs/block-kit.js';
import { permalinkTo } from '../codecs/mentions.js';

/** The status line under a run's root message; `cardLink`: a permalink to the waiting card. */
export function runStatusBlock(status: RunStatus, cardLink?: string): KnownBlock {
  return { type: 'context', elements: [mrkdwn(runStatusText(status, cardLink))] };
}

export function runStatusText(status: RunStatus, cardLink?: string): string {
  switch (status.kind) {
    case 'running':
      return ':arrow_forward: Running';
    case 'waiting': {
      const link = permalinkTo(cardLink, 'open the card');
      return `:hourglass_flowing_sand: Waiting for approval${link === undefined ? '' : ` · ${link}`}`;
    }
    case 'done':
      return ':white_check_mark: Done';
    case 'rejected':
      return ':x: Rejected';
    case 'denied':
      return ':no_entry: Denied by policy';
    case 'expired':
      return ':hourglass: Expired';
    case 'withdrawn':
      return ':leftwards_arrow_with_hook: Withdrawn';
    case 'failed':
      return ':warning: Failed';
    case 'cancelled':
      return ':no_entry_sign: Cancelled';
    case 'stood_down':
      return ':no_bell: Stood down';
  }
}
