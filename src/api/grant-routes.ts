import { keyCoversApp } from '../approvals/api-keys/api-key-scope.js';
import type { ApiKey } from '../approvals/api-keys/api-keys-file.js';
import type { Grant } from '../approvals/grants.js';
import type { GrantDecisions } from '../workflow/grant-decisions.js';
import type { ApiAnswer } from './responses.js';

/**
 * `GET /v1/grants` and `DELETE /v1/grants/{id}`: scoped grants for keys with `grants: true`,
 * limited to the grants given on the key's own pauses, of the apps it covers (any other grant,
 * another key's or one given in Slack, is "not found" to it).
 */

const FORBIDDEN: ApiAnswer = {
  kind: 'forbidden',
  why: 'this API key may not read or revoke grants (grants: true)',
};

export async function listGrants(
  key: ApiKey,
  grants: GrantDecisions,
  query: URLSearchParams,
): Promise<ApiAnswer> {
  if (!key.grants) return FORBIDDEN;
  const app = query.get('app');
  const requester = query.get('requester');
  const listed = (await grants.listAll()).filter(
    (grant) =>
      visibleTo(key, grant) &&
      (app === null || grant.app === app) &&
      (requester === null || grant.requester === requester),
  );
  return { kind: 'ok', body: { grants: listed.map(grantBody) } };
}

export async function revokeGrant(
  key: ApiKey,
  grants: GrantDecisions,
  id: string,
): Promise<ApiAnswer> {
  if (!key.grants) return FORBIDDEN;
  const found = await grants.find(id);
  if (found === undefined || !visibleTo(key, found)) return { kind: 'not_found' };
  const revoked = await grants.revoke(id, `api:${key.name}`, { anyGrant: true });
  if (revoked.kind === 'refused') return { kind: 'not_found' };
  return { kind: 'ok', body: { ...grantBody(found), revoked: true } };
}

function visibleTo(key: ApiKey, grant: Grant): boolean {
  return grant.origin === `api:${key.name}` && keyCoversApp(key, grant.app);
}

/** A grant as the API shows it: times in ms since the epoch, as the pause bodies give them. */
export function grantBody(grant: Grant): object {
  const { sessionKey, argsDigest, ...rest } = grant;
  return {
    ...rest,
    ...(sessionKey === undefined
      ? {}
      : { sessionId: sessionKey.slice(sessionKey.indexOf('/') + 1) }),
    ...(argsDigest === undefined ? {} : { argsSha256: argsDigest }),
  };
}
