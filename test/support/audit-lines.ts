import { AUDIT_EXPORT_KIND } from '../../src/approvals/audit-export.js';
import { AUDIT_GENESIS, chainLine } from '../../src/approvals/store/audit-chain.js';

/** Lines of an audit export, as the store and `audit export` write them. */

/** A pause's chain of `count` lines, as the store writes them. */
export function chain(
  pauseId: string,
  count: number,
  firstSeq = 1,
  firstPrev = AUDIT_GENESIS,
): string[] {
  const lines: string[] = [];
  let prev = firstPrev;
  for (let i = 0; i < count; i += 1) {
    const { line, hash } = chainLine({
      pauseId,
      seq: firstSeq + i,
      prev,
      at: 1_000 + i,
      event: i === 0 ? 'created' : 'voted',
      actor: 'U0BOB',
      callId: i === 0 ? '' : 'adk-1',
      detail: '',
      what: '{"app":"ops","tool":"restart"}',
    });
    lines.push(line);
    prev = hash;
  }
  return lines;
}

/** The export's first line. */
export const exportHeader = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ kind: AUDIT_EXPORT_KIND, v: 1, filters: {}, ...extra });
