import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKey } from './api-keys-file.js';

/**
 * The key a bearer token is, if any. Every configured key's hash is compared in constant time,
 * whichever matches, so that timing tells nothing about which key (or how much of one) matched.
 */
export function findApiKey(keys: readonly ApiKey[], presented: string): ApiKey | undefined {
  const hash = createHash('sha256').update(presented, 'utf8').digest();
  let found: ApiKey | undefined;
  for (const key of keys) {
    if (timingSafeEqual(hash, key.sha256) && found === undefined) found = key;
  }
  return found;
}

export function keyCoversApp(key: ApiKey, app: string): boolean {
  return key.apps.some((glob) => glob.test(app));
}

/** Whether the key covers every app (`*`): it may then read entries that name none. */
export function keyCoversEveryApp(key: ApiKey): boolean {
  return key.apps.some((glob) => glob.matchesEverything);
}

/**
 * Whether a webhook URL lies under one of the key's allowed prefixes. A prefix ends at a path
 * boundary: `https://hooks.example.com` allows `https://hooks.example.com/x`, not
 * `https://hooks.example.com.evil.net/`. Only http(s), without credentials.
 */
export function webhookAllowed(key: ApiKey, url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false;
  if (parsed.username !== '' || parsed.password !== '') return false;
  const normalized = parsed.href;
  return key.webhooks.some((prefix) => {
    const base = new URL(prefix).href;
    if (!normalized.startsWith(base)) return false;
    if (base.endsWith('/')) return true;
    const next = normalized.charAt(base.length);
    return next === '' || next === '/' || next === '?' || next === '#';
  });
}
