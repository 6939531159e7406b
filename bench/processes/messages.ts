import { z } from 'zod';

/**
 * What the benchmark and its child processes say to each other over the IPC channel `fork`
 * opens. Both sides parse what they receive: it arrives as untyped structured-clone data.
 */

/** A child is listening (the app, the bare Bolt app) or ready to take work (the clicker). */
export const readySchema = z.object({ kind: z.literal('ready'), port: z.number().int() });

/** A form body for one URL; the clicker signs it just before the burst. */
export const unsignedRequestSchema = z.object({ url: z.url(), body: z.string() });
export type UnsignedRequest = z.infer<typeof unsignedRequestSchema>;

/** Asks the clicker to send every request at once. */
export const fireSchema = z.object({
  kind: z.literal('fire'),
  signingSecret: z.string().min(1),
  requests: z.array(unsignedRequestSchema),
});
export type Fire = z.infer<typeof fireSchema>;

/**
 * One request's fate. `sentAt` is epoch milliseconds with sub-millisecond precision (comparable
 * across processes on one machine); `ackMs` is measured on one monotonic clock.
 */
export const clickOutcomeSchema = z.union([
  z.object({ sentAt: z.number(), status: z.number().int(), ackMs: z.number() }),
  z.object({ sentAt: z.number(), error: z.string() }),
]);
export type ClickOutcome = z.infer<typeof clickOutcomeSchema>;

export const firedSchema = z.object({
  kind: z.literal('fired'),
  outcomes: z.array(clickOutcomeSchema),
});
export type Fired = z.infer<typeof firedSchema>;

/** Asks a child for the CPU time it has used so far. */
export const cpuQuerySchema = z.object({ kind: z.literal('cpu?') });
export type CpuQuery = z.infer<typeof cpuQuerySchema>;

/** User plus system CPU time, in microseconds (`process.cpuUsage()`). */
export const cpuSchema = z.object({ kind: z.literal('cpu'), micros: z.number() });
export type Cpu = z.infer<typeof cpuSchema>;

/** Starts a V8 CPU profile of the child, or stops it and writes it to `file`. */
export const profileSchema = z.union([
  z.object({ kind: z.literal('profile'), action: z.literal('start') }),
  z.object({ kind: z.literal('profile'), action: z.literal('stop'), file: z.string().min(1) }),
]);
export type Profile = z.infer<typeof profileSchema>;

/** The profile asked for is started, or written. */
export const profiledSchema = z.object({ kind: z.literal('profiled') });
export type Profiled = z.infer<typeof profiledSchema>;

export type ToChild = Fire | CpuQuery | Profile;
export type ToParent = z.infer<typeof readySchema> | Fired | Cpu | Profiled;

/** Sends a message to the parent; a child started without an IPC channel cannot report. */
export function tellParent(message: ToParent): void {
  if (!process.send) throw new Error('started without an IPC channel: run me with fork()');
  process.send(message);
}
