import { createHash } from 'node:crypto';
import { FunctionTool } from '@google/adk';
import { z } from 'zod';
import { proposedStart, SERVICE_NAMES, SERVICES } from './fleet.js';

/**
 * The ops runbook's tools. They answer like the real thing would and change nothing. Each
 * result schema is also what the scripted model reads back (see `script.ts`).
 */

const unknownService = (name: string) => ({
  error: `There is no service named ${name}. Known services: ${SERVICE_NAMES.join(', ')}.`,
});

export const restartParameters = z.object({
  service: z.string().describe('The service to restart, e.g. payments-api.'),
});
export const restartResult = z.object({
  service: z.string(),
  status: z.literal('restarted'),
  podsReady: z.string(),
  tookSeconds: z.number(),
});

export const restartService = new FunctionTool({
  name: 'restart_service',
  description: 'Restart every pod of a service, one at a time. Always needs approval.',
  parameters: restartParameters,
  requireConfirmation: true,
  execute: ({ service }) => {
    const known = SERVICES[service];
    if (!known) return unknownService(service);
    return {
      service,
      status: 'restarted',
      podsReady: `${known.replicas}/${known.replicas}`,
      tookSeconds: 20 + 6 * known.replicas,
    } satisfies z.infer<typeof restartResult>;
  },
});

/** Scaling past this many replicas costs real money, so it needs a human. */
export const UNATTENDED_REPLICA_LIMIT = 10;

export const scaleParameters = z.object({
  deployment: z.string().describe('The deployment to scale, e.g. web.'),
  replicas: z.number().int().min(0).max(100).describe('How many replicas it should run.'),
});
export const scaleResult = z.object({
  deployment: z.string(),
  status: z.literal('scaled'),
  previousReplicas: z.number(),
  replicas: z.number(),
});

export const scaleDeployment = new FunctionTool({
  name: 'scale_deployment',
  description: `Set the number of replicas of a deployment. Needs approval above ${UNATTENDED_REPLICA_LIMIT} replicas.`,
  parameters: scaleParameters,
  requireConfirmation: ({ replicas }) => replicas > UNATTENDED_REPLICA_LIMIT,
  execute: ({ deployment, replicas }) => {
    const known = SERVICES[deployment];
    if (!known) return unknownService(deployment);
    return {
      deployment,
      status: 'scaled',
      previousReplicas: known.replicas,
      replicas,
    } satisfies z.infer<typeof scaleResult>;
  },
});

export const maintenanceParameters = z.object({
  services: z.array(z.string()).min(1).describe('The services the maintenance covers.'),
  when: z
    .string()
    .describe(
      'When it should start, in the requester\'s words ("tonight", "tomorrow") or ISO 8601.',
    ),
});
/** The window the approvers see and may edit before approving. */
export const maintenanceWindow = z.object({
  start: z.iso.datetime({
    error: 'start must be an ISO 8601 UTC time such as 2026-11-23T22:00:00Z',
  }),
  durationMinutes: z.number().int().min(5).max(480),
  notifyCustomers: z.boolean(),
  services: z.array(z.string().min(1)).min(1).max(10),
});
export const maintenanceResult = z.discriminatedUnion('status', [
  maintenanceWindow.extend({
    status: z.literal('scheduled'),
    maintenanceId: z.string(),
    end: z.string(),
  }),
  z.object({ status: z.literal('not_scheduled'), services: z.array(z.string()) }),
]);
type MaintenanceResult = z.infer<typeof maintenanceResult>;

/**
 * ADK JS 2.0.0 only accepts the answer to a confirmation the tool requested itself when the tool
 * says it requires confirmation; without this override every decision fails with
 * `confirmation_not_required`.
 */
class SelfConfirmingTool<P extends z.ZodObject> extends FunctionTool<P> {
  override async checkRequireConfirmation(): Promise<boolean> {
    return true;
  }
}

export const scheduleMaintenance = new SelfConfirmingTool({
  name: 'schedule_maintenance',
  description:
    'Book a maintenance window for some services. The approvers confirm, and may change, its start, duration, customer notice and services.',
  parameters: maintenanceParameters,
  execute: ({ services, when }, context) => {
    if (!context) throw new Error('schedule_maintenance needs a tool context');
    const confirmation = context.toolConfirmation;
    if (!confirmation) {
      const proposal: z.infer<typeof maintenanceWindow> = {
        start: proposedStart(when, new Date()),
        durationMinutes: 60,
        notifyCustomers: true,
        services,
      };
      context.requestConfirmation({
        hint: `Approve a maintenance window for ${services.join(', ')}. You may change the start (UTC), the duration in minutes, whether customers get notice, and the services.`,
        payload: proposal,
      });
      return { status: 'Waiting for approval.' };
    }
    if (!confirmation.confirmed) {
      return { status: 'not_scheduled', services } satisfies MaintenanceResult;
    }
    const window = maintenanceWindow.safeParse(confirmation.payload);
    if (!window.success) {
      return { error: `The approved window is not valid: ${z.prettifyError(window.error)}` };
    }
    const unknown = window.data.services.filter((name) => !SERVICES[name]);
    if (unknown.length > 0) return unknownService(unknown.join(', '));
    const start = new Date(window.data.start);
    const end = new Date(start.getTime() + window.data.durationMinutes * 60_000);
    return {
      ...window.data,
      status: 'scheduled',
      maintenanceId: maintenanceId(window.data),
      end: end.toISOString().replace('.000Z', 'Z'),
    } satisfies MaintenanceResult;
  },
});

/** Stable for the same window, like a booking system that deduplicates requests. */
function maintenanceId(window: z.infer<typeof maintenanceWindow>): string {
  const digest = createHash('sha256').update(JSON.stringify(window)).digest('hex');
  return `MW-${digest.slice(0, 6).toUpperCase()}`;
}

export const checkStatusParameters = z.object({
  service: z.string().describe('The service to check, e.g. payments-api.'),
});
export const checkStatusResult = z.object({
  service: z.string(),
  health: z.enum(['healthy', 'degraded']),
  version: z.string(),
  podsReady: z.string(),
  p95LatencyMs: z.number(),
  errorRatePercent: z.number(),
});

export const checkStatus = new FunctionTool({
  name: 'check_status',
  description: "Read a service's health, version, ready pods, latency and error rate.",
  parameters: checkStatusParameters,
  execute: ({ service }) => {
    const known = SERVICES[service];
    if (!known) return unknownService(service);
    return {
      service,
      health: known.health,
      version: known.version,
      podsReady: `${known.replicas}/${known.replicas}`,
      p95LatencyMs: known.p95LatencyMs,
      errorRatePercent: known.errorRatePercent,
    } satisfies z.infer<typeof checkStatusResult>;
  },
});

export const listServicesResult = z.object({
  services: z.array(z.object({ name: z.string(), health: z.enum(['healthy', 'degraded']) })),
});

export const listServices = new FunctionTool({
  name: 'list_services',
  description: 'List the services and their health.',
  execute: () =>
    ({
      services: Object.entries(SERVICES).map(([name, service]) => ({
        name,
        health: service.health,
      })),
    }) satisfies z.infer<typeof listServicesResult>,
});
