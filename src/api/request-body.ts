import type { IncomingMessage } from 'node:http';
import { parseJsonText } from '../json.js';

/** The largest body the API reads: a pause's events with large arguments fit well under it. */
export const MAX_BODY_BYTES = 1024 * 1024;

export type BodyRead =
  | { kind: 'json'; value: unknown; text: string }
  | { kind: 'too_large' }
  | { kind: 'not_json' };

/** Reads the body up to `MAX_BODY_BYTES`, stopping (not buffering) past it. */
export async function readJsonBody(req: IncomingMessage): Promise<BodyRead> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > MAX_BODY_BYTES) return { kind: 'too_large' };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return { kind: 'too_large' };
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { kind: 'json', value: {}, text };
  const json = parseJsonText(text);
  return json.ok ? { kind: 'json', value: json.value, text } : { kind: 'not_json' };
}
