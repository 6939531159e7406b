import type { App } from '@slack/bolt';
import type { ThreadMessageInput } from '../workflow/thread-replies.js';
import type { ListenerDeps } from './deps.js';
import { eventEnvelopeSchema, messageEventSchema } from './payloads.js';

/**
 * Subtypes that are still a person writing: a thread reply also sent to the channel. Every other
 * subtype (`message_changed`, `message_deleted`, `bot_message`, `channel_join`…) is ignored.
 */
const PERSON_SUBTYPES = new Set(['thread_broadcast']);

/**
 * `message` and `app_mention` events: replies in a run's thread, and mentions of the app. Bolt
 * acknowledges an event before any listener runs; the work goes on after.
 */
export function registerThreadEvents(app: App, { workflow, log }: ListenerDeps): void {
  const handle =
    (kind: ThreadMessageInput['kind']) => async (args: { body: unknown; event: unknown }) => {
      const input = threadMessageOf(kind, args.body, args.event);
      if (input.kind === 'unreadable') {
        log.warn('unreadable event payload', { event: kind, problem: input.problem });
        return;
      }
      if (input.kind === 'ignored') return;
      workflow.onThreadMessage(input.message);
    };
  app.event('message', handle('message'));
  app.event('app_mention', handle('app_mention'));
}

/** A person's new message, from an event's envelope and body; anything else is ignored. */
export function threadMessageOf(
  kind: ThreadMessageInput['kind'],
  body: unknown,
  event: unknown,
):
  | { kind: 'message'; message: ThreadMessageInput }
  | { kind: 'ignored' }
  | { kind: 'unreadable'; problem: string } {
  const envelope = eventEnvelopeSchema.safeParse(body);
  const parsed = messageEventSchema.safeParse(event);
  if (!envelope.success || !parsed.success) {
    const issue = (envelope.error ?? parsed.error)?.issues[0];
    return { kind: 'unreadable', problem: `${issue?.path.join('.')}: ${issue?.message}` };
  }
  const e = parsed.data;
  if (e.bot_id !== undefined || e.user === undefined) return { kind: 'ignored' };
  if (e.subtype !== undefined && !PERSON_SUBTYPES.has(e.subtype)) return { kind: 'ignored' };
  return {
    kind: 'message',
    message: {
      eventId: envelope.data.event_id,
      kind,
      teamId: envelope.data.team_id,
      channelId: e.channel,
      userId: e.user,
      text: e.text ?? '',
      ts: e.ts,
      // A thread's root carries `thread_ts` equal to its own ts once answered: still top-level.
      threadTs: e.thread_ts === undefined || e.thread_ts === e.ts ? undefined : e.thread_ts,
    },
  };
}
