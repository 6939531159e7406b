import {
  DEMO_APPS,
  demoAgents,
  type LocalAdkServer,
  startLocalAdkServer,
} from '@adk-slack-approvals/demo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdkClient } from '../../src/adk/client.js';
import type { Gate } from '../../src/adk/gate.js';
import type { AdkEvent } from '../../src/adk/wire.js';
import {
  type Conversation,
  countToolRuns,
  gateEvents,
  onlyGate,
  pauseOf,
  results,
  startConversation,
  texts,
} from '../support/adk-conversation.js';
import { TEST_STARTUP_TIMEOUT_MS } from '../support/adk-server.js';

/**
 * The demo agents `npm start` serves, on the real `adk api_server` started by the app's own
 * launcher (one server for this file), with the offline scripted model.
 */

const USER = 'u-demo';
let server: LocalAdkServer;
let client: AdkClient;

beforeAll(async () => {
  // The scripted model is what a fresh clone gets; a key in the environment would select Gemini.
  server = await startLocalAdkServer({
    ...demoAgents(),
    startupTimeoutMs: TEST_STARTUP_TIMEOUT_MS,
    env: { GOOGLE_API_KEY: undefined },
  });
  process.stderr.write(`demo adk api_server ready in ${server.startupMs} ms\n`);
  client = new AdkClient({ baseUrl: server.baseUrl });
}, TEST_STARTUP_TIMEOUT_MS + 10_000);

afterAll(async () => {
  if (!server) return;
  await server.stop();
  // Signal 0 only checks: the server's process group, esbuild included, is gone.
  expect(() => process.kill(-server.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
});

const ops = () => startConversation(client, 'ops', USER);
const payments = () => startConversation(client, 'payments', USER);
const approve = (chat: Conversation, gates: Gate[]) =>
  chat.resume(
    gates,
    Object.fromEntries(gates.map((g) => [g.confirmationCallId, { confirmed: true }])),
  );
const reject = (chat: Conversation, gates: Gate[]) =>
  chat.resume(
    gates,
    Object.fromEntries(gates.map((g) => [g.confirmationCallId, { confirmed: false }])),
  );
const answer = (run: AdkEvent[]) => texts(run).join('\n');

/** What the tool returned, as the model saw it. */
function toolResponse(run: AdkEvent[], name: string): unknown {
  const responses = run.flatMap((event) =>
    (event.content?.parts ?? []).flatMap((part) =>
      part.functionResponse?.name === name ? [part.functionResponse.response] : [],
    ),
  );
  expect(responses).toHaveLength(1);
  return responses[0];
}

describe('the demo agents served for npm start', () => {
  it('are both listed by the server', async () => {
    expect(await client.listApps()).toEqual([...DEMO_APPS].sort());
  });

  describe('ops', () => {
    it('"restart payments-api" waits for approval, then restarts it and says so', async () => {
      const chat = await ops();
      const gate = onlyGate(await chat.send('restart payments-api'));
      expect(gate.originalCall).toMatchObject({
        name: 'restart_service',
        args: { service: 'payments-api' },
      });
      expect(await countToolRuns(client, chat, 'restart_service')).toBe(0);

      const run = await approve(chat, [gate]);

      expect(results(run)).toEqual([
        { callId: gate.originalCall.id, name: 'restart_service', status: 'ok' },
      ]);
      expect(answer(run)).toBe('Done: payments-api restarted in 38 s and 3/3 pods are ready.');
    });

    it('a rejected restart is acknowledged and nothing restarts', async () => {
      const chat = await ops();
      const gate = onlyGate(await chat.send('Please restart the payments-api service'));

      const run = await reject(chat, [gate]);

      expect(results(run)).toEqual([
        { callId: gate.originalCall.id, name: 'restart_service', status: 'rejected' },
      ]);
      expect(answer(run)).toBe(
        'OK, I left payments-api running as it is: the restart was not approved.',
      );
      expect(await countToolRuns(client, chat, 'restart_service')).toBe(0);
    });

    it('"restart payments-api and ledger" asks for two approvals at once and reports each', async () => {
      const chat = await ops();
      const gates = pauseOf(await chat.send('restart payments-api and ledger'));
      expect(gates.map((gate) => gate.originalCall.args)).toEqual([
        { service: 'payments-api' },
        { service: 'ledger' },
      ]);
      const [first, second] = gates;
      if (!first || !second) throw new Error('two gates expected');

      const run = await chat.resume(gates, {
        [first.confirmationCallId]: { confirmed: true },
        [second.confirmationCallId]: { confirmed: false },
      });

      expect(answer(run)).toBe(
        'Done: payments-api restarted in 38 s and 3/3 pods are ready.\n' +
          'OK, I left ledger running as it is: the restart was not approved.',
      );
    });

    it('"scale web to 20" needs approval, and approving scales it', async () => {
      const chat = await ops();
      const gate = onlyGate(await chat.send('scale web to 20'));
      expect(gate.originalCall).toMatchObject({
        name: 'scale_deployment',
        args: { deployment: 'web', replicas: 20 },
      });

      const run = await approve(chat, [gate]);

      expect(answer(run)).toBe('Done: web now runs 20 replicas (it had 4).');
    });

    it('a rejected scale-up is acknowledged with what was asked', async () => {
      const chat = await ops();
      const gate = onlyGate(await chat.send('scale the web deployment up to 40 replicas'));

      const run = await reject(chat, [gate]);

      expect(answer(run)).toBe(
        'OK, web keeps its current size: scaling it to 40 replicas was not approved.',
      );
    });

    it('"scale web to 3" runs at once, without asking anyone', async () => {
      const chat = await ops();
      const run = await chat.send('scale web to 3');

      expect(gateEvents(run)).toEqual([]);
      expect(results(run)).toEqual([
        { callId: expect.any(String), name: 'scale_deployment', status: 'ok' },
      ]);
      expect(answer(run)).toBe('Done: web now runs 3 replicas (it had 4).');
    });

    it('"schedule maintenance for payments-api tonight" proposes an editable window', async () => {
      const chat = await ops();
      const gate = onlyGate(await chat.send('schedule maintenance for payments-api tonight'));

      expect(gate.originalCall).toMatchObject({
        name: 'schedule_maintenance',
        args: { services: ['payments-api'], when: 'tonight' },
      });
      expect(gate.payloadTemplate).toEqual({
        start: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T22:00:00Z$/),
        durationMinutes: 60,
        notifyCustomers: true,
        services: ['payments-api'],
      });
      expect(gate.hint).toContain('Approve a maintenance window for payments-api');
    });

    it('the window the approvers edited is the one the tool books', async () => {
      const chat = await ops();
      const gate = onlyGate(await chat.send('schedule maintenance for payments-api tonight'));
      const edited = {
        start: '2026-11-23T22:30:00Z',
        durationMinutes: 90,
        notifyCustomers: false,
        services: ['payments-api', 'ledger'],
      };

      const run = await chat.resume([gate], {
        [gate.confirmationCallId]: { confirmed: true, payload: edited },
      });

      expect(toolResponse(run, 'schedule_maintenance')).toEqual({
        ...edited,
        status: 'scheduled',
        maintenanceId: expect.stringMatching(/^MW-[0-9A-F]{6}$/),
        end: '2026-11-24T00:00:00Z',
      });
      expect(answer(run)).toMatch(
        /^Booked: maintenance MW-[0-9A-F]{6} for payments-api, ledger runs from 2026-11-23T22:30:00Z to 2026-11-24T00:00:00Z \(90 min\); customers will not be notified\.$/,
      );
    });

    it('an edited window that is not valid is refused by the tool, naming the field', async () => {
      const chat = await ops();
      const gate = onlyGate(await chat.send('schedule maintenance for ledger tomorrow'));

      const run = await chat.resume([gate], {
        [gate.confirmationCallId]: {
          confirmed: true,
          payload: { start: 'tonight', durationMinutes: 60, notifyCustomers: true, services: [] },
        },
      });

      expect(results(run)).toEqual([
        { callId: gate.originalCall.id, name: 'schedule_maintenance', status: 'failed' },
      ]);
      expect(answer(run)).toMatch(/^Sorry, that did not work: The approved window is not valid/);
      expect(answer(run)).toContain('start');
      expect(answer(run)).toContain('services');
    });

    it('a rejected maintenance window is acknowledged', async () => {
      const chat = await ops();
      const gate = onlyGate(await chat.send('schedule maintenance for payments-api tonight'));

      const run = await reject(chat, [gate]);

      expect(toolResponse(run, 'schedule_maintenance')).toEqual({
        status: 'not_scheduled',
        services: ['payments-api'],
      });
      expect(answer(run)).toBe(
        'OK, no maintenance was scheduled for payments-api: the window was not approved.',
      );
    });

    it('"status of payments-api" answers at once with its health', async () => {
      const chat = await ops();
      const run = await chat.send('status of payments-api');

      expect(gateEvents(run)).toEqual([]);
      expect(answer(run)).toBe(
        'payments-api is healthy: version 2.14.1, 3/3 pods ready, p95 latency 182 ms, 0.02% errors.',
      );
    });

    it('"list services" names every service and its health', async () => {
      const chat = await ops();
      const run = await chat.send('list services');

      expect(answer(run)).toBe(
        'I look after 5 services: payments-api (healthy), ledger (healthy), web (healthy), search (degraded), notifications (healthy).',
      );
    });

    it("approvers' feedback is acknowledged with their reason, and starts nothing", async () => {
      const chat = await ops();
      const gate = onlyGate(await chat.send('restart payments-api'));
      await reject(chat, [gate]);

      const run = await chat.send(
        'Feedback from the human approvers on the tool calls that were not approved:\n' +
          '- restart_service: not during peak hours, restart payments-api after 6pm',
      );

      expect(gateEvents(run)).toEqual([]);
      expect(results(run)).toEqual([]);
      expect(answer(run)).toBe(
        "Thanks for the feedback. I won't retry restart_service: the approvers said “not during peak hours, restart payments-api after 6pm”.",
      );
    });

    it("a policy's denial is acknowledged as the policy's, not credited to approvers (#34)", async () => {
      const chat = await ops();
      const gate = onlyGate(await chat.send('restart payments-api'));
      await reject(chat, [gate]);

      const run = await chat.send(
        'Why these tool calls were not approved:\n' +
          '- restart_service: denied by the approval policy (rule no-restarts), not by a person: restarts wait for the freeze to end',
      );

      expect(gateEvents(run)).toEqual([]);
      expect(answer(run)).toBe(
        "Understood. I won't retry restart_service: denied by the approval policy (rule no-restarts), not by a person: restarts wait for the freeze to end.",
      );
      expect(answer(run)).not.toContain('approvers');
    });

    it('a request it does not understand gets a short list of what it can do', async () => {
      const chat = await ops();
      const run = await chat.send('make me a sandwich');

      expect(results(run)).toEqual([]);
      expect(answer(run)).toMatch(
        /^I can restart a service, scale a deployment, schedule maintenance, check a service's status or list the services/,
      );
    });

    it('streams its answer as partial text, then whole', async () => {
      const chat = await ops();
      const run = await chat.send('hello', { streaming: true });
      expect(run.map((event) => event.partial ?? false)).toEqual([true, true, false]);
    });
  });

  describe('payments', () => {
    it('"transfer 250 to savings" waits for approval, then moves the money', async () => {
      const chat = await payments();
      const gate = onlyGate(await chat.send('transfer 250 to savings'));
      expect(gate.originalCall).toMatchObject({
        name: 'transfer_money',
        args: { amount: 250, to: 'savings' },
      });

      const run = await approve(chat, [gate]);

      expect(answer(run)).toMatch(
        /^Done: \$250\.00 went from checking to savings \(reference TR-[0-9A-Z]{7}\)\.$/,
      );
    });

    it('a rejected transfer is acknowledged with its amount', async () => {
      const chat = await payments();
      const gate = onlyGate(await chat.send('send $1,200 to acme'));

      const run = await reject(chat, [gate]);

      expect(answer(run)).toBe(
        'OK, I did not send $1,200.00 to acme: the transfer was not approved.',
      );
    });

    it('an invoice above $500 needs approval; a small one is paid at once', async () => {
      const chat = await payments();
      const large = onlyGate(await chat.send('pay invoice INV-1042'));
      expect(large.originalCall).toMatchObject({
        name: 'pay_invoice',
        args: { invoice: 'INV-1042', amount: 1250 },
      });
      const paidLarge = await approve(chat, [large]);
      expect(answer(paidLarge)).toMatch(/^Paid INV-1042: \$1,250\.00 to Acme Hosting/);

      const small = await chat.send('pay invoice INV-1043');

      expect(gateEvents(small)).toEqual([]);
      expect(answer(small)).toMatch(/^Paid INV-1043: \$86\.40 to Paper & Co/);
    });

    it('"balance" reads both accounts without asking anyone', async () => {
      const chat = await payments();
      const run = await chat.send("what's my balance?");

      expect(gateEvents(run)).toEqual([]);
      expect(answer(run)).toBe('checking holds $12,480.50.\nsavings holds $40,200.00.');
    });
  });
});
