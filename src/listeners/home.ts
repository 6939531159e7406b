import type { App } from '@slack/bolt';
import type { ListenerDeps } from './deps.js';
import { appHomeOpenedSchema } from './payloads.js';

/**
 * `app_home_opened`: the person looks at the app's Home tab; publish what waits for them.
 * (Its buttons are in actions.ts, with the card's.)
 */
export function registerAppHome(app: App, { homes, log }: ListenerDeps): void {
  app.event('app_home_opened', async ({ event }) => {
    const parsed = appHomeOpenedSchema.safeParse(event);
    if (!parsed.success) {
      log.warn('unreadable app_home_opened event', { problem: parsed.error.issues[0]?.message });
      return;
    }
    if (parsed.data.tab !== undefined && parsed.data.tab !== 'home') return;
    homes.opened(parsed.data.user);
  });
}
