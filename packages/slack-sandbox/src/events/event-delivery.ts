import { randomBytes } from 'node:crypto';
import { type Delivery, deliverSigned } from '../interactions/delivery.js';
import type { JsonObject } from '../json.js';
import type { Log } from '../log.js';
import { eventCallback } from './event-payloads.js';
import type { SocketModeServer } from './socket-mode.js';

/** One attempt at delivering an event: Slack's retry number (0: the first try) and what came of it. */
export interface EventAttempt {
  retryNum: number;
  retryReason: string | undefined;
  /** `answered <status>` (`socket answered 200` over Socket Mode), `timeout`, `unreachable`. */
  outcome: string;
}

/** An Events API event as the sandbox sent it, and every attempt at it. */
export interface EventDelivery {
  eventId: string;
  /** `message`, `app_mention`, `message/message_changed`… */
  type: string;
  envelope: JsonObject;
  attempts: EventAttempt[];
}

/** The app's Socket Mode connection, when it has one. */
export type SocketLink = Pick<SocketModeServer, 'connected' | 'send'>;

export interface EventDeliveryOptions {
  signingSecret: string;
  appEventsUrl: () => string | undefined;
  /** Slack waits 3 s for a 2xx before it counts a delivery as failed. */
  ackTimeoutMs: number;
  /**
   * Delays before retries 1, 2, 3. Slack retries at once, after a minute and after five
   * minutes; the sandbox's default is shorter so that a test sees all of them.
   */
  retryDelaysMs: readonly number[];
  nowMs: () => number;
  socket: SocketLink;
  onChange: () => void;
  log: Log;
}

/**
 * The Events API side of Slack: wraps each event in an `event_callback` envelope, signs it like
 * Slack, POSTs it to the app's request URL (or sends it over Socket Mode), and retries it with
 * `X-Slack-Retry-Num` / `X-Slack-Retry-Reason` when the app does not answer 2xx in time.
 */
export class EventDeliveries {
  private readonly list: EventDelivery[] = [];

  constructor(private readonly options: EventDeliveryOptions) {}

  /** Raises `event` for the app; resolves when it was acknowledged or every retry was spent. */
  async deliver(event: JsonObject): Promise<EventDelivery> {
    const eventId = `Ev${randomBytes(6).toString('hex').toUpperCase()}`;
    const envelope = eventCallback(event, eventId, Math.floor(this.options.nowMs() / 1000));
    const subtype = typeof event.subtype === 'string' ? `/${event.subtype}` : '';
    const delivery: EventDelivery = {
      eventId,
      type: `${String(event.type)}${subtype}`,
      envelope,
      attempts: [],
    };
    this.list.push(delivery);
    let reason: string | undefined;
    for (let retryNum = 0; retryNum <= this.options.retryDelaysMs.length; retryNum += 1) {
      if (retryNum > 0) await sleep(this.options.retryDelaysMs[retryNum - 1] ?? 0);
      const outcome = await this.attempt(delivery, retryNum, reason);
      if (outcome === 'done') break;
      reason = outcome;
    }
    return delivery;
  }

  /**
   * Sends an event again as Slack's next retry would (`X-Slack-Retry-Num` one more than the
   * last attempt's), whatever the app answered before: a duplicate the app must recognise.
   */
  async redeliver(eventId: string, reason = 'http_timeout'): Promise<EventDelivery> {
    const delivery = this.list.find((d) => d.eventId === eventId);
    if (!delivery) throw new Error(`redeliverEvent: no event ${eventId} was delivered`);
    await this.attempt(delivery, delivery.attempts.length, reason);
    return delivery;
  }

  all(): EventDelivery[] {
    return this.list;
  }

  clear(): void {
    this.list.length = 0;
  }

  /** `done` when the app took it (or nothing is connected); otherwise Slack's retry reason. */
  private async attempt(
    delivery: EventDelivery,
    retryNum: number,
    retryReason: string | undefined,
  ): Promise<'done' | string> {
    const record = (outcome: string) => {
      delivery.attempts.push({ retryNum, retryReason, outcome });
      this.options.onChange();
    };
    const { socket } = this.options;
    if (socket.connected()) {
      const acked = await socket.send('events_api', delivery.envelope, {
        num: retryNum,
        reason: retryReason,
      });
      record(acked.kind === 'answered' ? 'socket answered 200' : `socket ${acked.kind}`);
      return acked.kind === 'answered' ? 'done' : 'timeout';
    }
    const url = this.options.appEventsUrl();
    if (url === undefined) {
      record('no app connected');
      return 'done';
    }
    const headers: Record<string, string> =
      retryNum === 0
        ? {}
        : {
            'x-slack-retry-num': String(retryNum),
            'x-slack-retry-reason': retryReason ?? 'http_error',
          };
    const answer: Delivery = await deliverSigned({
      url,
      signingSecret: this.options.signingSecret,
      body: JSON.stringify(delivery.envelope),
      contentType: 'application/json',
      headers,
      timeoutMs: this.options.ackTimeoutMs,
      nowSec: Math.floor(this.options.nowMs() / 1000),
    });
    if (answer.kind === 'answered') {
      record(`answered ${answer.status}`);
      if (answer.status >= 200 && answer.status < 300) return 'done';
      return 'http_error';
    }
    record(answer.kind);
    this.options.log.warn('event not acknowledged', {
      eventId: delivery.eventId,
      detail: answer.kind,
    });
    return answer.kind === 'timeout' ? 'http_timeout' : 'connection_failed';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
