import { z } from 'zod';
import { type DemoScript, skill } from '../../scripted-model.js';
import { SERVICE_NAMES } from './fleet.js';
import {
  checkStatusParameters,
  checkStatusResult,
  listServicesResult,
  maintenanceParameters,
  maintenanceResult,
  restartParameters,
  restartResult,
  scaleParameters,
  scaleResult,
} from './tools.js';

/** How the offline model understands ops requests and talks about their results. */

// Only known names count as services, so "restart web and scale search" is not a restart of "scale".
const NAME = `(?:${SERVICE_NAMES.map((name) => name.replace(/[.-]/g, '\\$&')).join('|')})`;
const NAME_LIST = `${NAME}(?:\\s*,\\s*${NAME}|\\s*,?\\s+and\\s+(?:the\\s+)?${NAME})*`;
const nameIn = new RegExp(NAME, 'gi');
const namesIn = (list: string | undefined) =>
  [...(list ?? '').matchAll(nameIn)].map(([name]) => name.toLowerCase());
const pattern = (source: string) => new RegExp(source, 'gi');

const restart = skill({
  tool: 'restart_service',
  asks: [pattern(`\\b(?:restart|bounce|reboot)\\s+(?:the\\s+)?(${NAME_LIST})`)],
  calls: (match) => namesIn(match[1]).map((service) => ({ service })),
  args: restartParameters,
  result: restartResult,
  done: (r) =>
    `Done: ${r.service} restarted in ${r.tookSeconds} s and ${r.podsReady} pods are ready.`,
  rejected: (args) =>
    `OK, I left ${args?.service ?? 'the service'} running as it is: the restart was not approved.`,
});

const scale = skill({
  tool: 'scale_deployment',
  asks: [
    pattern(
      `\\bscale\\s+(?:up\\s+|down\\s+)?(?:the\\s+)?(${NAME})(?:\\s+deployment)?\\s+(?:up\\s+|down\\s+)?to\\s+(\\d+)`,
    ),
  ],
  calls: (match) =>
    namesIn(match[1]).map((deployment) => ({ deployment, replicas: Number(match[2]) })),
  args: scaleParameters,
  result: scaleResult,
  done: (r) =>
    `Done: ${r.deployment} now runs ${r.replicas} replicas (it had ${r.previousReplicas}).`,
  rejected: (args) =>
    args
      ? `OK, ${args.deployment} keeps its current size: scaling it to ${args.replicas} replicas was not approved.`
      : 'OK, nothing was scaled: it was not approved.',
});

const maintenance = skill({
  tool: 'schedule_maintenance',
  asks: [
    pattern(
      `\\b(?:schedule|plan|book)\\s+(?:a\\s+)?maintenance(?:\\s+window)?\\s+(?:for|on)\\s+(?:the\\s+)?(${NAME_LIST})(?:\\s+(tonight|tomorrow|\\d{4}-\\d{2}-\\d{2}T\\S+))?`,
    ),
  ],
  calls: (match) => [{ services: namesIn(match[1]), when: match[2] ?? 'tonight' }],
  args: maintenanceParameters,
  result: maintenanceResult,
  done: (r) =>
    r.status === 'scheduled'
      ? `Booked: maintenance ${r.maintenanceId} for ${r.services.join(', ')} runs from ${r.start} to ${r.end} (${r.durationMinutes} min); customers ${r.notifyCustomers ? 'will' : 'will not'} be notified.`
      : `OK, no maintenance was scheduled for ${r.services.join(', ')}: the window was not approved.`,
  rejected: () => 'OK, no maintenance was scheduled: the window was not approved.',
});

const status = skill({
  tool: 'check_status',
  asks: [
    pattern(`\\b(?:status|health)\\s+(?:of|for)\\s+(?:the\\s+)?(${NAME_LIST})`),
    pattern(`\\bhow(?:'s|\\s+is)\\s+(?:the\\s+)?(${NAME})\\b`),
    pattern(`\\bis\\s+(?:the\\s+)?(${NAME})\\s+(?:up|ok|okay|healthy|down)\\b`),
  ],
  calls: (match) => namesIn(match[1]).map((service) => ({ service })),
  args: checkStatusParameters,
  result: checkStatusResult,
  done: (r) =>
    `${r.service} is ${r.health}: version ${r.version}, ${r.podsReady} pods ready, p95 latency ${r.p95LatencyMs} ms, ${r.errorRatePercent}% errors.`,
  rejected: () => 'OK, I did not check it.',
});

const list = skill({
  tool: 'list_services',
  asks: [pattern(`\\b(?:list|show)(?:\\s+me)?(?:\\s+(?:all|the|our))*\\s+services\\b`)],
  calls: () => [{}],
  args: z.object({}),
  result: listServicesResult,
  done: (r) =>
    `I look after ${r.services.length} services: ${r.services.map((s) => `${s.name} (${s.health})`).join(', ')}.`,
  rejected: () => 'OK, I did not list them.',
});

export const OPS_SCRIPT: DemoScript = {
  skills: [restart, scale, maintenance, status, list],
  help: `I can restart a service, scale a deployment, schedule maintenance, check a service's status or list the services (${SERVICE_NAMES.join(', ')}). Try "restart payments-api", "scale web to 20" or "status of ledger".`,
};
