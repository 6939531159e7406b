import type { z } from 'zod';
import {
  apiErrorSchema,
  type CreatedPause,
  createdPauseSchema,
  type Decision,
  decisionSchema,
  notYetSchema,
  type UnsupportedAnswer,
  unsupportedAnswerSchema,
} from './decision.js';
import { currentTraceparent } from './trace-context.js';

/** How a decided pause reaches the agent; see docs/api.md. */
export type ResumeMode =
  | { mode: 'poll' }
  | { mode: 'adk'; target?: string }
  | { mode: 'webhook'; url: string };

export interface PauseToPost {
  app: string;
  userId: string;
  sessionId: string;
  /** ADK events as the runner emitted them, JSON-ready. */
  events: unknown[];
  resume: ResumeMode;
  channel?: string;
  requestedBy?: { slackUserId?: string; email?: string; name?: string };
  title?: string;
  links?: { text: string; url: string }[];
}

/** A post made a pause (one card), or only a notice of requests nobody can answer in Slack. */
export type PostAnswer =
  | { kind: 'pause'; pause: CreatedPause }
  | { kind: 'unsupported'; answer: UnsupportedAnswer };

export type DecisionPoll =
  | { kind: 'decided'; decision: Decision }
  | { kind: 'pending' }
  /** Decided, but an undo window holds it until `holdUntil`: not yet a decision to act on. */
  | { kind: 'held'; holdUntil: Date };

/**
 * What happened after a decision: the call ran (`executed`, `failed`), the plugin refused it
 * (`blocked`), it was answered no (`rejected`), or the agent received the decision and did not
 * act on it, so nothing ran (`refused`: ADK refused it, or the driver could not resume with it).
 */
export type OutcomeStatus = 'executed' | 'failed' | 'blocked' | 'rejected' | 'refused';

export interface ApprovalsClientOptions {
  /** The app's base URL, e.g. `https://approvals.example.com`. */
  baseUrl: string;
  apiKey: string;
  /** Attempts for a request that failed on the network or with 5xx/429. Default 4. */
  attempts?: number;
  /** First retry delay, doubled each time. Default 250 ms. */
  backoffMs?: number;
}

/** The API answered something other than what the call expects; `problems` name fields only. */
export class ApprovalsApiError extends Error {
  override readonly name = 'ApprovalsApiError';
  constructor(
    readonly status: number,
    readonly problems: readonly string[],
  ) {
    super(`approvals API answered ${status}${problems.length ? `: ${problems.join('; ')}` : ''}`);
  }
}

/**
 * The approvals API over `fetch`. Creating a pause is retried on network errors, 5xx and 429:
 * the service answers the same gates (and the same `Idempotency-Key`) with the pause it already
 * has, so a retry never posts a second card.
 */
export class ApprovalsClient {
  private readonly base: string;
  private readonly attempts: number;
  private readonly backoffMs: number;

  constructor(private readonly options: ApprovalsClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.attempts = options.attempts ?? 4;
    this.backoffMs = options.backoffMs ?? 250;
  }

  /** Sends the active span's `traceparent` too: the approval shows in the agent's trace. */
  async createPause(pause: PauseToPost, idempotencyKey: string): Promise<PostAnswer> {
    const traceparent = currentTraceparent();
    const response = await this.send('/v1/pauses', {
      method: 'POST',
      body: JSON.stringify(pause),
      headers: {
        'idempotency-key': idempotencyKey,
        ...(traceparent === undefined ? {} : { traceparent }),
      },
    });
    if (response.status === 200) {
      const body: unknown = await response.json().catch(() => undefined);
      const unsupported = unsupportedAnswerSchema.safeParse(body);
      if (unsupported.success) return { kind: 'unsupported', answer: unsupported.data };
      return { kind: 'pause', pause: parseBody(response.status, body, createdPauseSchema) };
    }
    return { kind: 'pause', pause: await parse(response, [201], createdPauseSchema) };
  }

  /** The decision, waiting up to `waitSeconds` (0–30) for it. */
  async decision(pauseId: string, waitSeconds: number): Promise<DecisionPoll> {
    const wait = waitSeconds > 0 ? `?wait=${Math.min(30, Math.ceil(waitSeconds))}` : '';
    const response = await this.send(`/v1/pauses/${encodeURIComponent(pauseId)}/decision${wait}`, {
      method: 'GET',
    });
    if (response.status === 202) {
      const notYet = await parse(response, [202], notYetSchema);
      return notYet.status === 'held'
        ? { kind: 'held', holdUntil: new Date(notYet.holdUntil) }
        : { kind: 'pending' };
    }
    return { kind: 'decided', decision: await parse(response, [200], decisionSchema) };
  }

  async cancel(pauseId: string, reason?: string): Promise<void> {
    const response = await this.send(`/v1/pauses/${encodeURIComponent(pauseId)}/cancel`, {
      method: 'POST',
      body: JSON.stringify(reason === undefined ? {} : { reason }),
    });
    await expectStatus(response, [200]);
  }

  /**
   * Claims an approved gate's call before running it: `true` for the first claim across every
   * process, `false` when another already claimed it. Throws when the service cannot say, and
   * while an undo window holds the approval (`held`: it may still be taken back).
   */
  async claimRun(pauseId: string, callId: string): Promise<boolean> {
    const response = await this.send(`/v1/pauses/${encodeURIComponent(pauseId)}/claim`, {
      method: 'POST',
      body: JSON.stringify({ callId }),
    });
    if (response.status === 409) {
      const problems = await problemsOf(response);
      if (problems[0] === 'held') throw new ApprovalsApiError(409, problems);
      return false;
    }
    await expectStatus(response, [200]);
    return true;
  }

  async reportOutcome(
    pauseId: string,
    outcome: { callId: string; status: OutcomeStatus; detail?: string },
  ): Promise<void> {
    const response = await this.send(`/v1/pauses/${encodeURIComponent(pauseId)}/outcome`, {
      method: 'POST',
      body: JSON.stringify(outcome),
    });
    await expectStatus(response, [200]);
  }

  private async send(
    path: string,
    init: { method: string; body?: string; headers?: Record<string, string> },
  ): Promise<Response> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      if (attempt > 1) await sleep(this.backoffMs * 2 ** (attempt - 2));
      try {
        const response = await fetch(`${this.base}${path}`, {
          method: init.method,
          headers: {
            authorization: `Bearer ${this.options.apiKey}`,
            ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...init.headers,
          },
          ...(init.body === undefined ? {} : { body: init.body }),
        });
        if (response.status < 500 && response.status !== 429) return response;
        lastError = new ApprovalsApiError(response.status, await problemsOf(response));
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }
}

async function parse<T>(response: Response, ok: number[], schema: z.ZodType<T>): Promise<T> {
  await expectStatus(response, ok, false);
  return parseBody(response.status, await response.json().catch(() => undefined), schema);
}

function parseBody<T>(status: number, body: unknown, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new ApprovalsApiError(
      status,
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`),
    );
  }
  return parsed.data;
}

async function expectStatus(response: Response, ok: number[], drain = true): Promise<void> {
  if (!ok.includes(response.status)) {
    throw new ApprovalsApiError(response.status, await problemsOf(response));
  }
  if (drain) await response.body?.cancel();
}

async function problemsOf(response: Response): Promise<string[]> {
  const parsed = apiErrorSchema.safeParse(await response.json().catch(() => undefined));
  return parsed.success ? [parsed.data.error, ...(parsed.data.problems ?? [])] : [];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
