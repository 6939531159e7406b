/**
 * The ADK wire model, pure: events and sessions (`wire/events.ts`), the gates an event raises
 * (`wire/gates.ts`), the message that answers them (`wire/resume.ts`), and what a run's events
 * mean for a thread (`wire/run-output.ts`). Import from here.
 */

export * from './wire/events.js';
export * from './wire/gates.js';
export * from './wire/requests.js';
export * from './wire/resume.js';
export * from './wire/run-output.js';
