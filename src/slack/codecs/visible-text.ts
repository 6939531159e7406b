import { stripHiding } from './escape.js';

/**
 * The last guard before Slack: every text object (`plain_text`, `mrkdwn`) in a message's blocks
 * or a view, and a message's notification text, without the characters that hide or reorder
 * text (`stripHiding`). The renderers already show those characters escaped in whatever came
 * from outside (`escape.ts`); this catches a string a renderer passed through as it was (a
 * label from a schema, a name), so that nothing reaches a person's screen able to hide or
 * reorder what it says. Everything else (ids, values, metadata) is copied unchanged.
 */
export function visibleOnly(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(visibleOnly);
  if (typeof value !== 'object' || value === null) return value;
  const isText = 'type' in value && (value.type === 'plain_text' || value.type === 'mrkdwn');
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    copy[key] =
      isText && key === 'text' && typeof inner === 'string'
        ? stripHiding(inner)
        : visibleOnly(inner);
  }
  return copy;
}
