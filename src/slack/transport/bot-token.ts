import { z } from 'zod';
import { errorMessage } from '../../error-message.js';
import type { LineLogger } from '../../log.js';
import { type SlackApiCaller, SlackPlatformError } from './slack-http-client.js';

/**
 * The bot token, as Slack judges it (`auth.test`): checked at start, so that a wrong token is
 * said at once and by the variable's name, and again every `recheckMs` while `/readyz` is asked,
 * so that a token revoked while running shows there too. Bolt asks it for each request's
 * authorization (the token and the bot's ids, learnt once) instead of calling `auth.test` itself,
 * whose rejected promise was unhandled when the token was wrong.
 */

/** `auth.test` errors that mean the token itself is refused (docs.slack.dev, auth.test). */
const REFUSALS = new Set([
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
]);

const authTestSchema = z.object({
  user_id: z.string(),
  bot_id: z.string().optional(),
  team: z.string().optional(),
});

export type BotTokenVerdict =
  | { kind: 'valid'; botUserId: string; botId: string | undefined; team: string | undefined }
  /** Slack answered that the token is no good (`error`: its code). */
  | { kind: 'refused'; error: string }
  /** Slack could not be asked (unreachable, slow, an error of its own): nothing is known yet. */
  | { kind: 'unverified'; problem: string };

export interface BotTokenOptions {
  token: string;
  client: SlackApiCaller;
  log: LineLogger;
  /** How old a verdict may be before `/readyz` has Slack asked again. Default 60 s. */
  recheckMs?: number;
  now?: () => number;
}

/** Bolt's authorization of a request: the token, and the bot's ids once known. */
export interface BotAuthorization {
  botToken: string;
  botUserId?: string;
  botId?: string;
}

const DEFAULT_RECHECK_MS = 60_000;
/** While unverified, requests ask Slack again at most this often. */
const UNVERIFIED_RETRY_MS = 5_000;

export class BotToken {
  private verdict: BotTokenVerdict = { kind: 'unverified', problem: 'not checked yet' };
  private checkedAt = Number.NEGATIVE_INFINITY;
  private checking: Promise<BotTokenVerdict> | undefined;
  private readonly recheckMs: number;
  private readonly now: () => number;

  constructor(private readonly options: BotTokenOptions) {
    this.recheckMs = options.recheckMs ?? DEFAULT_RECHECK_MS;
    this.now = options.now ?? Date.now;
  }

  /** Asks Slack now (one question at a time); logs the verdict when it changes. */
  verify(): Promise<BotTokenVerdict> {
    this.checking ??= this.ask().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  /**
   * For `/readyz`: throws, naming SLACK_BOT_TOKEN, while Slack refuses the token. Answers from the
   * last verdict and, when it is stale, has Slack asked again meanwhile: a probe never waits on
   * Slack, and a slow Slack never makes the app unready.
   */
  readonly readiness = async (): Promise<void> => {
    if (this.now() - this.checkedAt >= this.recheckMs) void this.verify();
    if (this.verdict.kind === 'refused') throw new Error(refusalText(this.verdict.error));
  };

  /** For `/readyz`'s warnings: why the token is not verified yet, if it is not. */
  warning(): string | undefined {
    return this.verdict.kind === 'unverified' && this.checkedAt > Number.NEGATIVE_INFINITY
      ? `SLACK_BOT_TOKEN not verified yet: auth.test failed (${this.verdict.problem})`
      : undefined;
  }

  /**
   * Bolt's `authorize`: refuses every request while Slack refuses the token. Never waits on
   * Slack (a request has 3 s to be acknowledged): while unverified it has Slack asked again.
   */
  readonly authorize = async (): Promise<BotAuthorization> => {
    if (this.verdict.kind === 'unverified' && this.now() - this.checkedAt >= UNVERIFIED_RETRY_MS) {
      void this.verify();
    }
    const verdict = this.verdict;
    if (verdict.kind === 'refused') throw new Error(refusalText(verdict.error));
    const botToken = this.options.token;
    if (verdict.kind === 'unverified') return { botToken };
    return {
      botToken,
      botUserId: verdict.botUserId,
      ...(verdict.botId === undefined ? {} : { botId: verdict.botId }),
    };
  };

  private async ask(): Promise<BotTokenVerdict> {
    let next: BotTokenVerdict;
    try {
      const answer = authTestSchema.safeParse(await this.options.client.apiCall('auth.test', {}));
      next = answer.success
        ? {
            kind: 'valid',
            botUserId: answer.data.user_id,
            botId: answer.data.bot_id,
            team: answer.data.team,
          }
        : { kind: 'unverified', problem: 'auth.test answered without a user_id' };
    } catch (error) {
      next =
        error instanceof SlackPlatformError && REFUSALS.has(error.data.error)
          ? { kind: 'refused', error: error.data.error }
          : { kind: 'unverified', problem: errorMessage(error) };
    }
    this.checkedAt = this.now();
    // A failed question does not undo what Slack said before: a valid token stays valid.
    if (next.kind === 'unverified' && this.verdict.kind !== 'unverified') return this.verdict;
    this.report(next);
    this.verdict = next;
    return next;
  }

  private report(next: BotTokenVerdict): void {
    const before = this.verdict;
    const { log } = this.options;
    if (next.kind === 'refused') {
      if (before.kind !== 'refused' || before.error !== next.error) {
        log.error(`${refusalText(next.error)}; /readyz answers 503 until it is replaced`);
      }
    } else if (next.kind === 'valid') {
      if (before.kind !== 'valid') {
        log.info('SLACK_BOT_TOKEN verified (auth.test)', {
          botUser: next.botUserId,
          ...(next.team === undefined ? {} : { team: next.team }),
        });
      }
    } else if (before.kind !== 'unverified' || before.problem !== next.problem) {
      log.warn(
        `could not verify SLACK_BOT_TOKEN with auth.test (${next.problem}): Slack is asked again`,
      );
    }
  }
}

function refusalText(error: string): string {
  return `Slack refuses SLACK_BOT_TOKEN (${error}): set it to the app's Bot User OAuth Token (xoxb-…, OAuth & Permissions), reinstalling the app if the token was revoked`;
}
