import type { Harness } from './app-harness.js';

/** The person's Home as last published, once `ready` holds for its JSON text. */
export function homeOnceItSays(harness: Harness, user: string, ready: (text: string) => boolean) {
  return harness.sandbox.waitFor(
    () => {
      const home = harness.sandbox.home(user);
      return home !== undefined && ready(JSON.stringify(home.view)) && home;
    },
    { timeoutMs: 15_000 },
  );
}

/** A block_actions from a Home tab, signed as Slack signs it, for a button the person never saw. */
export async function postHomeClick(
  harness: Harness,
  user: string,
  action: { action_id: string; value: string },
): Promise<Response> {
  const payload = {
    type: 'block_actions',
    user: { id: user, username: 'forger', team_id: 'T0SANDBOX01' },
    api_app_id: 'A0SANDBOX01',
    token: 'unused',
    container: { type: 'view', view_id: 'V0FORGED001' },
    trigger_id: '1.2.forged',
    team: { id: 'T0SANDBOX01', domain: 'sandbox' },
    view: { id: 'V0FORGED001', type: 'home', blocks: [], state: { values: {} } },
    state: { values: {} },
    actions: [{ type: 'button', block_id: 'forged', action_ts: '1.000001', ...action }],
  };
  const response = await harness.postInteraction(payload);
  await response.body?.cancel();
  return response;
}
