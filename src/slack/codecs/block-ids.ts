import { createHash } from 'node:crypto';
import type { KnownBlock } from './block-kit.js';

/**
 * Gives `block` an id unique in its message (`key`, which the caller makes unique) that changes
 * whenever the block's content does: Slack clients keep what they rendered for a block id, and
 * an approver must see exactly what they approve.
 */
export function withBlockId<T extends KnownBlock>(key: string, block: T): T {
  const hash = createHash('sha256').update(JSON.stringify(block)).digest('base64url').slice(0, 12);
  return { ...block, block_id: `${key}.${hash}` };
}
