import type { IncomingMessage, ServerResponse } from 'node:http';
import { type JsonObject, jsonSchema } from '../json.js';

/** Slack refuses views over 250 kB; a few MB is ample for anything legitimate. */
export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;

export type BodyRead = { ok: true; text: string } | { ok: false; reason: 'too_large' };

export async function readBody(
  req: IncomingMessage,
  limitBytes = BODY_LIMIT_BYTES,
): Promise<BodyRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > limitBytes) return { ok: false, reason: 'too_large' };
    chunks.push(buffer);
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

/** Form fields as strings, the way Slack (and the SDK) encode them. */
export function parseForm(text: string): JsonObject {
  const fields: JsonObject = {};
  for (const [name, value] of new URLSearchParams(text)) fields[name] = value;
  return fields;
}

export type ObjectRead = { ok: true; value: JsonObject } | { ok: false };

export function parseJsonObject(text: string): ObjectRead {
  try {
    const parsed = jsonSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return { ok: false };
    const value = parsed.data;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? { ok: true, value }
      : { ok: false };
  } catch {
    return { ok: false };
  }
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
