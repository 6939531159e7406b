import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sendText } from './bodies.js';

/**
 * The page's files live in `src/page` of this package. They are found from the package
 * root (the directory holding package.json), so the same code serves them when it runs from
 * `src/` (vitest) and from `dist/` (after tsc) without copying anything.
 */
export function pageDirectory(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'src', 'page');
    const parent = dirname(dir);
    if (parent === dir) throw new Error('the sandbox page: no package.json above the sandbox code');
    dir = parent;
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * The page renders untrusted message content; this policy is the second line of defence after
 * building DOM nodes with textContent: no inline script, nothing loaded from elsewhere but images.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https: http:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export async function servePageFile(
  res: ServerResponse,
  directory: string,
  relative: string,
): Promise<void> {
  const root = resolve(directory);
  const file = resolve(root, `.${sep}${relative}`);
  const type = TYPES[extname(file)];
  if (!file.startsWith(root + sep) || type === undefined) return sendText(res, 404, 'not_found');
  let content: Buffer;
  try {
    content = await readFile(file);
  } catch {
    return sendText(res, 404, 'not_found');
  }
  res.writeHead(200, {
    'content-type': type,
    'content-length': content.length,
    'cache-control': 'no-cache',
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(content);
}
