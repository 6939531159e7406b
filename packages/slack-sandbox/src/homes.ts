import { randomBytes } from 'node:crypto';
import type { JsonObject } from './json.js';
import { prepared, type SandboxView } from './modals.js';
import { slackId } from './timestamps.js';

/**
 * Each person's App Home tab: the one `type: 'home'` view the app last published for them
 * (`views.publish`). Publishing again keeps the view's id and changes its hash, as Slack does.
 */
export class Homes {
  private readonly byUser = new Map<string, SandboxView>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  publish(user: string, view: JsonObject): SandboxView {
    const existing = this.byUser.get(user);
    const id = existing?.id ?? slackId('V');
    const published: SandboxView = {
      id,
      user,
      view: prepared(view),
      hash: `${Math.floor(this.nowMs() / 1000)}.${randomBytes(6).toString('base64url')}`,
      externalId: undefined,
      rootViewId: id,
      previousViewId: undefined,
      values: {},
      errors: {},
      notice: undefined,
    };
    this.byUser.set(user, published);
    return published;
  }

  of(user: string): SandboxView | undefined {
    return this.byUser.get(user);
  }

  byId(viewId: string): SandboxView | undefined {
    for (const home of this.byUser.values()) if (home.id === viewId) return home;
    return undefined;
  }

  clear(): void {
    this.byUser.clear();
  }
}
