import { z } from 'zod';
import { compileGlob, type Glob } from '../policy/glob.js';
import { parseYamlFile, readConfigText } from '../yaml-file.js';

/**
 * The API keys file (`API_KEYS_FILE`, YAML or JSON): who may post pauses for which apps, where
 * their decisions may be POSTed, and the secret their webhooks and attestations are signed with.
 * Read like the policy file: every problem at once, as `file:line:col key.path: what is wrong`,
 * and never a secret's value.
 */

export interface ApiKey {
  name: string;
  /** The SHA-256 of the key, as 32 bytes: what a presented key's hash is compared with. */
  sha256: Buffer;
  apps: Glob[];
  /** URL prefixes a webhook resume may POST to; empty: no webhook mode for this key. */
  webhooks: string[];
  /** Signs webhook deliveries and decision attestations (HMAC-SHA256). */
  signingSecret: string;
  /** May export the audit trail of its apps (`GET /v1/audit`). */
  audit: boolean;
  /** May list and revoke the scoped grants of its apps (`GET /v1/grants`, `DELETE /v1/grants/{id}`). */
  grants: boolean;
  /** May start, read and cancel runs of its apps (`/v1/runs`) and send alerts (`/v1/alerts/…`). */
  runs: boolean;
}

export class ApiKeysError extends Error {
  override readonly name = 'ApiKeysError';
  constructor(readonly problems: readonly string[]) {
    super(`Invalid API keys file:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

const webhookPrefix = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '';
  } catch {
    return false;
  }
}, 'expected an http(s) URL prefix without credentials, e.g. "https://hooks.example.com/approvals/"');

const keySchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected 1–64 letters, digits, "_", "." or "-"'),
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'expected the 64 hex digits of the SHA-256 of the key'),
  apps: z.array(z.string().min(1)).min(1, 'expected at least one app name or pattern'),
  webhooks: z.array(webhookPrefix).optional(),
  signingSecret: z.string().min(32, 'expected a secret of at least 32 characters'),
  audit: z.boolean({ error: 'expected true or false' }).optional(),
  grants: z.boolean({ error: 'expected true or false' }).optional(),
  runs: z.boolean({ error: 'expected true or false' }).optional(),
});

const fileSchema = z.strictObject({ keys: z.array(keySchema) });

export async function loadApiKeysFile(path: string): Promise<ApiKey[]> {
  const read = await readConfigText(path, 'the API keys file');
  if (!read.ok) throw new ApiKeysError([read.problem]);
  return parseApiKeys(read.text, path);
}

/** Throws an `ApiKeysError` naming every problem with its line and column. */
export function parseApiKeys(text: string, source: string): ApiKey[] {
  const parsed = parseYamlFile(text, source, fileSchema);
  if (!parsed.ok) throw new ApiKeysError(parsed.problems);
  const { at } = parsed;
  const problems: string[] = [];
  const names = new Set<string>();
  const keys = parsed.data.keys.map((entry, index): ApiKey => {
    if (names.has(entry.name))
      problems.push(at(['keys', index, 'name'], 'a second key of this name'));
    names.add(entry.name);
    const apps = entry.apps.flatMap((pattern, appIndex) => {
      const glob = compileGlob(pattern);
      if (glob.ok) return [glob.glob];
      problems.push(at(['keys', index, 'apps', appIndex], glob.error));
      return [];
    });
    return {
      name: entry.name,
      sha256: Buffer.from(entry.sha256, 'hex'),
      apps,
      webhooks: entry.webhooks ?? [],
      signingSecret: entry.signingSecret,
      audit: entry.audit ?? false,
      grants: entry.grants ?? false,
      runs: entry.runs ?? false,
    };
  });
  if (problems.length > 0) throw new ApiKeysError(problems);
  return keys;
}
