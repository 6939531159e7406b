/**
 * What the sandbox page suggests with the demo (`npm start` with nothing configured): one prompt
 * for each thing the demo policy (`policy.yml`) shows. Typed as Alice in #ops, where runs start;
 * the cards go where the policy sends them.
 */
export interface DemoPrompt {
  text: string;
  /** What it shows, in a few words. */
  shows: string;
  channel: string;
}

const OPS = 'C0OPS000001';

export const DEMO_PROMPTS: readonly DemoPrompt[] = [
  {
    text: '/agent restart payments-api',
    shows: 'asks @oncall; "Approve for this session" gives a grant (then reply "restart ledger")',
    channel: OPS,
  },
  {
    text: '/agent payments transfer 50 to savings',
    shows: 'allowed by the policy: one line, no card',
    channel: OPS,
  },
  {
    text: '/agent payments transfer 250 to savings',
    shows: 'asks in #payments; a reject needs a reason',
    channel: OPS,
  },
  {
    text: '/agent payments transfer 9000 to acme',
    shows: 'denied by the policy: the agent hears why',
    channel: OPS,
  },
  {
    text: '/agent payments pay invoice INV-1042',
    shows: '30 s to undo after the approval',
    channel: OPS,
  },
  {
    text: '/agent restart payments-api and ledger',
    shows: 'two calls: approve both at once from the App Home',
    channel: OPS,
  },
  {
    text: '/agent scale web to 20',
    shows: 'needs two approvers',
    channel: OPS,
  },
];
