import type { IncomingMessage } from 'node:http';
import { findApiKey } from '../approvals/api-keys/api-key-scope.js';
import type { ApiKey } from '../approvals/api-keys/api-keys-file.js';

export type Authentication = { kind: 'key'; key: ApiKey } | { kind: 'unauthenticated' };

/** `Authorization: Bearer <key>`, compared with every configured key's hash in constant time. */
export function authenticate(req: IncomingMessage, keys: readonly ApiKey[]): Authentication {
  const header = req.headers.authorization;
  const match = header === undefined ? null : /^Bearer ([\x21-\x7e]{1,512})$/.exec(header);
  const presented = match?.[1];
  if (presented === undefined) return { kind: 'unauthenticated' };
  const key = findApiKey(keys, presented);
  return key === undefined ? { kind: 'unauthenticated' } : { kind: 'key', key };
}
