import { randomBytes } from 'node:crypto';

/**
 * `response_url`s handed out with interactions. Slack honours each up to 5 times within
 * 30 minutes; they post into the conversation the interaction came from.
 */
export interface ResponseTarget {
  user: string;
  channel: string;
  threadTs: string | undefined;
  /** The message the interaction came from, which `replace_original`/`delete_original` act on. */
  original: { kind: 'message' | 'ephemeral'; ts: string } | undefined;
}

export const RESPONSE_URL_USES = 5;
export const RESPONSE_URL_TTL_MS = 30 * 60 * 1000;

export type ResponseUrlUse =
  | { ok: true; target: ResponseTarget }
  | { ok: false; error: 'invalid_url' | 'expired_url' | 'used_url' };

interface Issued {
  target: ResponseTarget;
  issuedAtMs: number;
  uses: number;
}

export class ResponseUrls {
  private readonly issued = new Map<string, Issued>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** Returns the id that goes at the end of the URL. */
  issue(target: ResponseTarget): string {
    const id = randomBytes(18).toString('base64url');
    this.issued.set(id, { target, issuedAtMs: this.nowMs(), uses: 0 });
    return id;
  }

  use(id: string): ResponseUrlUse {
    const issued = this.issued.get(id);
    if (!issued) return { ok: false, error: 'invalid_url' };
    if (this.nowMs() - issued.issuedAtMs > RESPONSE_URL_TTL_MS)
      return { ok: false, error: 'expired_url' };
    if (issued.uses >= RESPONSE_URL_USES) return { ok: false, error: 'used_url' };
    issued.uses += 1;
    return { ok: true, target: issued.target };
  }
}
