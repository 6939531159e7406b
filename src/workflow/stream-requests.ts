import type { Gate } from '../adk/gate.js';
import {
  type AdkEvent,
  type InputRequest,
  inputGate,
  parseGates,
  scanRequests,
} from '../adk/wire.js';

/** What a stream asks of people that nobody can answer in Slack: told in a notice. */
export interface StreamNotices {
  /** Tools that asked for credentials (never collected in Slack). */
  credentialTools: string[];
  /** Confirmations a tool asked for that ADK raised no request for: they cannot be answered. */
  unraisedConfirmations: { tool: string; hint?: string }[];
}

/** What one stream left waiting for people once it ended. */
export interface StreamRequestsSummary extends StreamNotices {
  /** Every gate of the stream, confirmations then input requests: one pause, one message. */
  gates: Gate[];
  /** The invocation that raised the first gate. */
  invocationId: string | undefined;
}

/**
 * Collects what a run (or resume) stream asks of people, event by event, until the stream ends.
 * A ParallelAgent's branches pause in separate events of one invocation; answering them one at a
 * time re-runs the ParallelAgent and runs the first branch's tool twice, so a stream's gates are
 * one pause.
 */
export class StreamRequests {
  private readonly gates = new Map<string, Gate>();
  private readonly callNames = new Map<string, string>();
  private readonly credentialCalls: (string | undefined)[] = [];
  private readonly requested = new Map<string, string | undefined>();
  private readonly inputs = new Map<string, InputRequest>();

  /** Adds one event; returns the problems of a confirmation request that cannot be read. */
  add(event: AdkEvent): { problems: string[]; eventId?: string } | undefined {
    const requests = scanRequests(event);
    for (const [id, name] of requests.calls) this.callNames.set(id, name);
    for (const credential of requests.credentials) this.credentialCalls.push(credential.callId);
    for (const { callId, hint } of requests.requestedConfirmations) {
      if (!this.requested.has(callId)) this.requested.set(callId, hint);
    }
    for (const input of requests.inputs) this.inputs.set(input.id, input);

    const found = parseGates(event);
    if (found.kind === 'invalid') {
      return found.eventId === undefined
        ? { problems: found.problems }
        : { problems: found.problems, eventId: found.eventId };
    }
    if (found.kind === 'pause') {
      for (const gate of found.gates) {
        // The first sighting wins: a repeated request (a Workflow repeats its interrupts) is
        // the same gate.
        if (!this.gates.has(gate.confirmationCallId)) this.gates.set(gate.confirmationCallId, gate);
      }
    }
    return undefined;
  }

  summary(): StreamRequestsSummary {
    const gates = [
      ...this.gates.values(),
      // A Workflow repeats an interrupt's id in later events; an id already a gate is that gate.
      ...[...this.inputs.values()].filter((input) => !this.gates.has(input.id)).map(inputGate),
    ];
    const gated = new Set(gates.map((gate) => gate.originalCall.id));
    const unraisedConfirmations = [...this.requested]
      .filter(([callId]) => !gated.has(callId))
      .map(([callId, hint]) => ({
        tool: this.callNames.get(callId) ?? 'a tool',
        ...(hint === undefined ? {} : { hint }),
      }));
    const credentialTools = [
      ...new Set(
        this.credentialCalls.map((callId) =>
          callId === undefined ? 'a tool' : (this.callNames.get(callId) ?? 'a tool'),
        ),
      ),
    ];
    return {
      gates,
      invocationId: gates[0]?.invocationId,
      credentialTools,
      unraisedConfirmations,
    };
  }
}
