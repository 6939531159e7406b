import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVER, callIdsOf, newPause, policy } from '../approvals/store/fixtures.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({
    policy: `
defaults:
  approvers: [${bob.id}]
rules:
  - name: tiny-transfers
    match: { tool: transfer_money }
    when: args.amount < 10
    decision: allow
`,
    // A vote marks its pause's resume due before it runs, so a sweep could take the resume over
    // from the click, and click → resume would not be timed; this test times the click's.
    sweepIntervalMs: 60_000,
  });
});
afterAll(async () => {
  await harness?.stop();
});

/** GET /metrics, as Prometheus scrapes it: `name{labels}` → value. */
async function scrape(): Promise<{ contentType: string; samples: Map<string, number> }> {
  const response = await fetch(`http://127.0.0.1:${harness.app.port}/metrics`);
  expect(response.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\S+) (\S+)$/.exec(line);
    if (!match?.[1] || match[2] === undefined) throw new Error(`not an exposition line: ${line}`);
    samples.set(match[1], Number(match[2]));
  }
  return { contentType: response.headers.get('content-type') ?? '', samples };
}

describe('GET /metrics', () => {
  it('after one approval shows the decision counted and every latency of it observed', async () => {
    const before = await scrape();
    expect(before.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 250');
    const card = await harness.card(OPS, root.ts);
    expect(await harness.approveUntilResumed(bob.id, OPS, card)).toBe(200);
    await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    // The root's status is redrawn off the critical path: wait for its last redraw.
    await harness.sandbox.waitFor(() =>
      JSON.stringify(harness.sandbox.message(OPS, root.ts)?.blocks).includes('Done'),
    );

    const after = await scrape();
    const moved = (name: string) =>
      (after.samples.get(name) ?? 0) - (before.samples.get(name) ?? 0);
    expect(moved('approvals_gates_opened_total{app="payments"}')).toBe(1);
    expect(moved('approvals_decisions_total{app="payments",outcome="approved"}')).toBe(1);
    expect(moved('approvals_human_decision_seconds_count{outcome="approved"}')).toBe(1);
    expect(moved('approvals_decided_total{decided_by="person"}')).toBe(1);
    expect(
      moved(
        `approvals_time_to_decision_seconds_count{rule="defaults",channel="${OPS}",decided_by="person"}`,
      ),
    ).toBe(1);
    expect(moved('approvals_pause_to_card_seconds_count')).toBe(1);
    expect(moved('approvals_click_to_ack_seconds_count')).toBe(1);
    expect(moved('approvals_click_to_resume_seconds_count')).toBe(1);
    expect(moved('approvals_click_to_resume_seconds_sum')).toBeGreaterThan(0);
    expect(moved('approvals_external_call_seconds_count{service="adk",method="run_sse"}')).toBe(2);
    expect(
      moved('approvals_external_call_seconds_count{service="slack",method="chat.postMessage"}'),
    ).toBeGreaterThanOrEqual(2);
    // The card changes once per decision: its redraw waits for the resume, so decided and resumed
    // are one update; the run's root twice: waiting for approval, then done.
    expect(
      moved('approvals_external_call_seconds_count{service="slack",method="chat.update"}'),
    ).toBe(3);
    // Defined before any delivery, so that dashboards have a series to show.
    expect(after.samples.get('approvals_webhook_deliveries_total{outcome="delivered"}')).toBe(0);
    expect(after.samples.get('approvals_resume_failures_total')).toBeUndefined();
  });

  it('the people side: who decided (person or policy), and what waits for each named approver', async () => {
    const before = await scrape();
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 5');
    await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    const waiting = await harness.runAgent(alice.id, OPS, 'payments transfer 300');
    await harness.card(OPS, waiting.ts);
    const after = await scrape();
    const moved = (name: string) =>
      (after.samples.get(name) ?? 0) - (before.samples.get(name) ?? 0);
    expect(moved('approvals_decided_total{decided_by="policy"}')).toBe(1);
    expect(
      moved(
        `approvals_time_to_decision_seconds_count{rule="tiny-transfers",channel="${OPS}",decided_by="policy"}`,
      ),
    ).toBe(1);
    expect(
      after.samples.get(`approvals_pending_by_approver{approver="${bob.id}"}`),
    ).toBeGreaterThanOrEqual(1);
  });

  it("approvals_pending_gates is the store's count, whichever replica recorded or decided the gates", async () => {
    // Recorded and decided through a store of their own, as another replica would: this app
    // neither opened nor closed them, and its gauge still counts them.
    const now = Date.now();
    const pending = () => policy({ expiresInMs: 3_600_000 });
    const two = newPause({ gates: 2, now, policies: [pending()] });
    const one = newPause({ now, policies: [pending()] });
    for (const pause of [two, one]) await harness.store.pauses.createPause(pause);
    const gauge = async () =>
      (await scrape()).samples.get('approvals_pending_gates{app="hitl_agent"}');
    // A count is reused for up to 5 s: the gauge follows within that.
    const poll = { timeout: 15_000, interval: 250 };
    await expect.poll(gauge, poll).toBe(3);

    for (const pause of [two, one]) {
      const [callId] = callIdsOf(pause);
      if (callId === undefined) throw new Error('no gate');
      const voted = await harness.store.pauses.vote({
        pauseId: pause.id,
        callId,
        voter: APPROVER,
        choice: 'approve',
        now: Date.now(),
      });
      expect(voted.kind).toBe('decided');
    }
    await expect.poll(gauge, poll).toBe(1);
  }, 40_000);
});
