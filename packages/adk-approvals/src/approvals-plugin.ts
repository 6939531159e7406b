import { createHash } from 'node:crypto';
import {
  BasePlugin,
  type BaseTool,
  type Context,
  type Event,
  getFunctionCalls,
  getFunctionResponses,
  type InvocationContext,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
} from '@google/adk';
import { z } from 'zod';
import {
  ApprovalsApiError,
  ApprovalsClient,
  type OutcomeStatus,
  type PauseToPost,
  type ResumeMode,
} from './approvals-client.js';
import { canonicalJson, sha256Hex } from './attestation.js';
import type { CreatedPause, Decision } from './decision.js';
import { jsonValueSchema } from './decision.js';
import {
  type AttestedDecision,
  type CallVerdict,
  type EnforcementMode,
  judgeConfirmedCall,
  type RefusalReason,
} from './enforcement.js';

export interface ApprovalsPluginOptions {
  /** The approvals app's base URL. */
  baseUrl: string;
  /** A key from the app's `API_KEYS_FILE`. */
  apiKey: string;
  /** The key's `signingSecret`: checks the attestations offline. Required unless enforcement is `off` or `deny-only`. */
  signingSecret?: string;
  /** Default `attested`. */
  enforcement?: EnforcementMode;
  /** Default `{mode: 'poll'}`. */
  resume?: ResumeMode;
  channel?: string;
  title?: string;
  links?: { text: string; url: string }[];
  requestedBy?: PauseToPost['requestedBy'];
  /** The plugin's name in the runner. Default `adk_slack_approvals`. */
  name?: string;
  /** Where refusals and failed reports are told; never given arguments or payloads. Default `console`. */
  logger?: Pick<Console, 'warn'>;
  /** Attempts per API request (see ApprovalsClient). */
  attempts?: number;
  backoffMs?: number;
}

/** A pause the plugin posted for an invocation. */
export interface PostedPause {
  invocationId: string;
  pause: CreatedPause;
}

/**
 * What an invocation asked that nobody can answer in Slack (the service posted a notice):
 * `runWithApprovals` ends with `unsupported_pause` naming these.
 */
export type UnsupportedRequest =
  | {
      kind: 'credential';
      /** The `adk_request_credential` call's id. */
      requestId: string;
      /** The tool that waits for the credential. */
      tool: string;
    }
  | {
      /**
       * A tool asked for a confirmation (`actions.requestedToolConfirmations`) that ADK raised no
       * `adk_request_confirmation` for: a tool resumed with its approval that asks again, a
       * Workflow ToolNode. Nobody can answer it; the tool did not do what it asked about.
       */
      kind: 'unraised_confirmation';
      /** The tool call that asked. */
      callId: string;
      tool: string;
    }
  | {
      /**
       * The stream that delivered an approval asked again for the same tool and arguments
       * instead of running the call (ADK JS 2.0's Workflow LlmAgent node re-runs its input on
       * resume): no second card, the approved gate's card says so.
       */
      kind: 're_request';
      /** The new call that asks again. */
      callId: string;
      tool: string;
    };

/** A tool call the plugin refused, as reported to the service and the logger. */
export interface Refusal {
  callId: string;
  tool: string;
  reason: RefusalReason;
}

const REFUSED_MESSAGE: Record<RefusalReason, string> = {
  no_decision: 'no decision from the approvers was attested for this call',
  denied: 'the approvers rejected this call',
  bad_signature: 'the decision is not signed by the approvals service',
  expired: 'the decision has expired',
  tool_mismatch: 'the decision was made for another tool',
  arguments_mismatch: 'the decision was made for other arguments',
  answer_mismatch: 'the confirmation differs from the decision',
  already_used: 'the decision was already used to run this call',
  claimed_elsewhere: 'another process already used the decision to run this call',
  claim_unavailable: 'the approvals service could not record that the decision is being used',
  arguments_not_json: 'the call arguments are not JSON',
};

/**
 * Puts an agent's confirmation requests in front of people in Slack and runs a gated tool only
 * on their decision.
 *
 * 1. `onEventCallback` collects the events of an invocation that carry `adk_request_confirmation`
 *    calls; ADK ends the invocation after them.
 * 2. `afterRunCallback` posts them as one pause (parallel gates: one card), with an
 *    `Idempotency-Key` per invocation, so retries and re-runs post nothing twice.
 * 3. `beforeToolCallback` judges a call that carries a confirmation (see `EnforcementMode`) and
 *    answers a refused one with an error result instead of running it.
 * 4. `afterToolCallback` and `onToolErrorCallback` tell the service what happened.
 */
export class ApprovalsPlugin extends BasePlugin {
  readonly client: ApprovalsClient;
  private readonly enforcement: EnforcementMode;
  private readonly logger: Pick<Console, 'warn'>;
  /** Per invocation: the events to post (requests to people), as JSON. */
  private readonly collected = new Map<string, unknown[]>();
  /** Per invocation: the names of the tool calls it made, by call id. */
  private readonly callNames = new Map<string, Map<string, string>>();
  private readonly posted = new Map<string, PostedPause>();
  private readonly unsupported = new Map<string, UnsupportedRequest[]>();
  /** Per invocation: confirmations tools asked for, by call id → the event that carries them. */
  private readonly requested = new Map<string, Map<string, Event>>();
  /** Per invocation: the original calls ADK raised an `adk_request_confirmation` for. */
  private readonly raised = new Map<string, Set<string>>();
  /** Gated call id → the pause and confirmation call that ask for it. */
  private readonly askedIn = new Map<string, { pauseId: string; callId: string }>();
  /** Gated call id → the attested decisions received for it. */
  private readonly decisions = new Map<string, AttestedDecision[]>();
  private readonly used = new Set<string>();
  /**
   * Approvals handed over and not yet followed by a run, by tool and arguments hash: the gate
   * they approved and the call they are for.
   */
  private delivered = new Map<
    string,
    { pauseId: string; callId: string; originalCallId: string }
  >();
  /** Gated call id → the approvers' reason for rejecting it, from a decision received. */
  private readonly rejectReasons = new Map<string, string>();
  /**
   * Calls let through, whose outcome is reported after they run; `unchecked`: let through by
   * `deny-only` or `off` on a confirmation nobody checked (the card says so).
   */
  private readonly running = new Map<
    string,
    { pauseId: string; callId: string; unchecked?: EnforcementMode }
  >();

  constructor(private readonly options: ApprovalsPluginOptions) {
    super(options.name ?? 'adk_slack_approvals');
    this.enforcement = options.enforcement ?? 'attested';
    if (this.enforcement === 'attested' && !options.signingSecret) {
      throw new Error('ApprovalsPlugin: signingSecret is required when enforcement is attested');
    }
    this.logger = options.logger ?? console;
    this.client = new ApprovalsClient({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      ...(options.attempts === undefined ? {} : { attempts: options.attempts }),
      ...(options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs }),
    });
  }

  override async onEventCallback({ event }: { event: Event }): Promise<Event | undefined> {
    if (event.partial) return undefined;
    const calls = getFunctionCalls(event);
    const names = this.callNames.get(event.invocationId) ?? new Map<string, string>();
    this.callNames.set(event.invocationId, names);
    for (const call of calls) {
      if (call.id && call.name) names.set(call.id, call.name);
    }
    for (const response of getFunctionResponses(event)) {
      if (response.id && response.name) names.set(response.id, response.name);
    }
    this.noteConfirmations(event, calls);
    const credentials = calls.filter((call) => call.name === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME);
    const asks = calls.some(
      (call) =>
        call.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME ||
        call.name === REQUEST_INPUT_FUNCTION_CALL_NAME,
    );
    if (asks || credentials.length > 0) {
      const events = this.collected.get(event.invocationId) ?? [];
      events.push(asks ? event : credentialNotice(event, credentials, names));
      this.collected.set(event.invocationId, events);
    }
    if (credentials.length > 0) {
      const requests = this.unsupported.get(event.invocationId) ?? [];
      for (const call of credentials) {
        const toolCallId = credentialToolCallId(call.args);
        requests.push({
          kind: 'credential',
          requestId: call.id ?? '',
          tool: (toolCallId && names.get(toolCallId)) || 'a tool',
        });
      }
      this.unsupported.set(event.invocationId, requests);
    }
    return undefined;
  }

  override async afterRunCallback({
    invocationContext,
  }: {
    invocationContext: InvocationContext;
  }): Promise<void> {
    const invocationId = invocationContext.invocationId;
    this.collectUnraised(invocationId);
    this.callNames.delete(invocationId);
    const delivered = this.delivered;
    this.delivered = new Map();
    const collected = this.collected.get(invocationId);
    if (collected === undefined) return;
    this.collected.delete(invocationId);
    const events = await this.withoutReRequests(invocationId, collected, delivered);
    if (events.length === 0) return;
    const { session } = invocationContext;
    const idempotencyKey = createHash('sha256')
      .update(JSON.stringify([invocationContext.appName, session.userId, session.id, invocationId]))
      .digest('hex');
    // Throws when the service cannot be reached after the retries: a pause nobody sees must
    // fail the run loudly rather than leave the agent waiting forever.
    const answer = await this.client.createPause(
      {
        app: invocationContext.appName,
        userId: session.userId,
        sessionId: session.id,
        events,
        resume: this.options.resume ?? { mode: 'poll' },
        ...(this.options.channel === undefined ? {} : { channel: this.options.channel }),
        ...(this.options.title === undefined ? {} : { title: this.options.title }),
        ...(this.options.links === undefined ? {} : { links: this.options.links }),
        ...(this.options.requestedBy === undefined
          ? {}
          : { requestedBy: this.options.requestedBy }),
      },
      idempotencyKey,
    );
    if (answer.kind === 'unsupported') return;
    const { pause } = answer;
    this.posted.set(invocationId, { invocationId, pause });
    for (const event of events) {
      if (!isAdkEvent(event)) continue;
      for (const call of getFunctionCalls(event)) {
        const original = originalCallIdOf(call.args);
        if (call.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME && call.id && original) {
          this.askedIn.set(original, { pauseId: pause.id, callId: call.id });
        }
      }
    }
  }

  /**
   * A confirmation request for the same tool and arguments as an approval this stream delivered,
   * whose call never ran: ADK asks again instead of running it (a Workflow LlmAgent node re-runs
   * its input). Another card would loop; the approved gate's card says what happened instead,
   * and the run ends `unsupported_pause`.
   */
  private async withoutReRequests(
    invocationId: string,
    events: unknown[],
    delivered: ReadonlyMap<string, { pauseId: string; callId: string; originalCallId: string }>,
  ): Promise<unknown[]> {
    if (delivered.size === 0) return events;
    const kept: unknown[] = [];
    for (const event of events) {
      if (!isAdkEvent(event)) {
        kept.push(event);
        continue;
      }
      const parts = event.content?.parts ?? [];
      const keptParts = [];
      for (const part of parts) {
        const again = this.reRequestOf(part.functionCall, delivered);
        if (again === undefined) {
          keptParts.push(part);
          continue;
        }
        const requests = this.unsupported.get(invocationId) ?? [];
        requests.push({ kind: 're_request', callId: again.callId, tool: again.tool });
        this.unsupported.set(invocationId, requests);
        await this.report(
          again.approved,
          'failed',
          'the agent asked again for this same call instead of running it after the approval (an ADK Workflow LlmAgent node re-runs its input on resume): nothing ran, and no second card was posted',
        );
      }
      if (keptParts.length === parts.length) kept.push(event);
      else if (keptParts.some((part) => part.functionCall !== undefined)) {
        kept.push({ ...event, content: { ...event.content, parts: keptParts } });
      }
    }
    return kept;
  }

  private reRequestOf(
    call: { name?: string; args?: Record<string, unknown> } | undefined,
    delivered: ReadonlyMap<string, { pauseId: string; callId: string; originalCallId: string }>,
  ): { callId: string; tool: string; approved: { pauseId: string; callId: string } } | undefined {
    if (call?.name !== REQUEST_CONFIRMATION_FUNCTION_CALL_NAME) return undefined;
    const original = originalCallSchema.safeParse(call.args?.originalFunctionCall);
    if (!original.success) return undefined;
    const { id, name, args } = original.data;
    const json = jsonValueSchema.safeParse(args ?? {});
    if (!json.success) return undefined;
    const approved = delivered.get(`${name}\n${sha256Hex(canonicalJson(json.data))}`);
    if (approved === undefined || approved.originalCallId === id) return undefined;
    // The approved call ran in this process: a new ask for the same call is a new request.
    if (this.used.has(approved.originalCallId)) return undefined;
    return { callId: id, tool: name, approved };
  }

  /** Remembers the confirmations tools asked for and those ADK raised a request for. */
  private noteConfirmations(event: Event, calls: ReturnType<typeof getFunctionCalls>): void {
    const invocationId = event.invocationId;
    const raised = this.raised.get(invocationId) ?? new Set<string>();
    this.raised.set(invocationId, raised);
    for (const call of calls) {
      const original = originalCallIdOf(call.args);
      if (call.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME && original) raised.add(original);
    }
    const requested = this.requested.get(invocationId) ?? new Map<string, Event>();
    this.requested.set(invocationId, requested);
    for (const callId of Object.keys(event.actions?.requestedToolConfirmations ?? {})) {
      requested.set(callId, event);
    }
  }

  /**
   * A confirmation a tool asked for that ADK raised no request for cannot be answered: it is
   * posted for a notice (names and hint only) and ends `runWithApprovals` as unsupported.
   */
  private collectUnraised(invocationId: string): void {
    const requested = this.requested.get(invocationId);
    const raised = this.raised.get(invocationId) ?? new Set<string>();
    const names = this.callNames.get(invocationId) ?? new Map<string, string>();
    this.requested.delete(invocationId);
    this.raised.delete(invocationId);
    for (const [callId, event] of requested ?? []) {
      if (raised.has(callId)) continue;
      const tool = names.get(callId) ?? 'a tool';
      const requests = this.unsupported.get(invocationId) ?? [];
      requests.push({ kind: 'unraised_confirmation', callId, tool });
      this.unsupported.set(invocationId, requests);
      const events = this.collected.get(invocationId) ?? [];
      events.push(unraisedNotice(event, callId, tool));
      this.collected.set(invocationId, events);
    }
  }

  /**
   * What an invocation asked that nobody can answer in Slack (credentials): the service posted
   * a notice; the run cannot go on until the agent gets them where it runs.
   */
  unsupportedRequests(invocationId: string): UnsupportedRequest[] {
    return this.unsupported.get(invocationId) ?? [];
  }

  /** The pause posted for an invocation, if it paused. */
  postedPause(invocationId: string): PostedPause | undefined {
    return this.posted.get(invocationId);
  }

  /**
   * Hands the plugin a decision it did not fetch itself (the poll helper, a webhook receiver).
   * Nothing is trusted yet: each attestation is checked when its call is about to run.
   */
  acceptDecision(decision: Decision): void {
    for (const attestation of decision.attestation.gates) {
      const reason = decision.gates.find((gate) => gate.callId === attestation.callId)?.reason;
      if (attestation.confirmed) {
        this.delivered.set(`${attestation.tool}\n${attestation.argsSha256}`, {
          pauseId: decision.id,
          callId: attestation.callId,
          originalCallId: attestation.originalCallId,
        });
      }
      if (reason !== undefined) this.rejectReasons.set(attestation.originalCallId, reason);
      const held = this.decisions.get(attestation.originalCallId) ?? [];
      if (!held.some((d) => d.attestation.signature === attestation.signature)) {
        held.push({ pauseId: decision.id, attestation });
      }
      this.decisions.set(attestation.originalCallId, held);
    }
  }

  override async beforeToolCallback({
    tool,
    toolArgs,
    toolContext,
  }: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    const confirmation = toolContext.toolConfirmation;
    const callId = toolContext.functionCallId;
    // No confirmation: the first pass, where the tool itself asks for one.
    if (confirmation === undefined || callId === undefined) return undefined;
    if (this.enforcement === 'attested' && !this.decisions.has(callId)) {
      await this.fetchDecision(callId);
    }
    const args = jsonValueSchema.safeParse(toolArgs);
    const payload = jsonValueSchema.safeParse(confirmation.payload);
    const verdict: CallVerdict = judgeConfirmedCall({
      mode: this.enforcement,
      call: {
        id: callId,
        tool: tool.name,
        args: args.success ? args.data : undefined,
        confirmation: {
          confirmed: confirmation.confirmed === true,
          payload:
            confirmation.payload === undefined || !payload.success ? undefined : payload.data,
        },
      },
      decisions: this.decisions.get(callId) ?? [],
      secret: this.options.signingSecret ?? '',
      now: Math.floor(Date.now() / 1000),
      used: this.used.has(callId),
    });
    if (verdict.kind === 'run') {
      if (verdict.attested === undefined) {
        // `deny-only` and `off`: nothing to claim, but a call tied to a posted gate still gets
        // its outcome on the card; the service closes a gate nobody decided with that fact.
        const asked = this.askedIn.get(callId);
        if (asked === undefined) return undefined;
        if (confirmation.confirmed === true) {
          this.running.set(callId, { ...asked, unchecked: this.enforcement });
        } else {
          // `off` leaves the no to ADK, which does not run the tool: it is a rejection.
          await this.reportRejection(asked, callId);
        }
        return undefined;
      }
      this.used.add(callId);
      const claim = await this.claimRun(verdict.attested);
      if (claim === 'claimed') {
        this.running.set(callId, verdict.attested);
        return undefined;
      }
      // The process that claimed it runs it and reports its outcome; nothing is reported here.
      const refusal: Refusal = { callId, tool: tool.name, reason: claim };
      this.logger.warn('adk-approvals: tool call refused', refusal);
      return { error: `Tool call refused: ${REFUSED_MESSAGE[claim]}.` };
    }
    const denied =
      verdict.reason === 'denied' ? (verdict.pause ?? this.askedIn.get(callId)) : undefined;
    if (denied !== undefined) {
      // The approvers' own rejection (attested, or any no under `deny-only`): not a refusal of
      // the plugin's.
      const reason = await this.reportRejection(denied, callId);
      return {
        error: `Tool call rejected by the approvers${reason === undefined ? '' : `: ${reason}`}.`,
      };
    }
    const refusal: Refusal = { callId, tool: tool.name, reason: verdict.reason };
    this.logger.warn('adk-approvals: tool call refused', refusal);
    const pause = verdict.pause ?? this.askedIn.get(callId);
    if (pause !== undefined) {
      const why = `refused by the agent's plugin: ${REFUSED_MESSAGE[verdict.reason]}`;
      await this.report(pause, 'blocked', why);
      await this.closeGate(pause.pauseId, tool.name, why);
    }
    return { error: `Tool call refused: ${REFUSED_MESSAGE[verdict.reason]}.` };
  }

  override async afterToolCallback({
    toolContext,
  }: {
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    const callId = toolContext.functionCallId;
    const pause = callId === undefined ? undefined : this.running.get(callId);
    if (callId !== undefined && pause !== undefined) {
      this.running.delete(callId);
      // Resumed with its approval, the tool asked again: ADK raises no request for that ask,
      // and the tool returned without doing what it asked about.
      const askedAgain = toolContext.actions.requestedToolConfirmations?.[callId] !== undefined;
      await (askedAgain
        ? this.report(
            pause,
            'failed',
            'the tool asked for another confirmation after this approval, which the agent cannot raise as a request: it did not do what it asked about',
          )
        : this.report(pause, 'executed', uncheckedDetail(pause.unchecked)));
    }
    return undefined;
  }

  override async onToolErrorCallback({
    toolContext,
    error,
  }: {
    toolContext: Context;
    error: Error;
  }): Promise<Record<string, unknown> | undefined> {
    const callId = toolContext.functionCallId;
    const pause = callId === undefined ? undefined : this.running.get(callId);
    if (callId !== undefined && pause !== undefined) {
      this.running.delete(callId);
      // The error's name only: its message may quote the arguments.
      const unchecked = uncheckedDetail(pause.unchecked);
      await this.report(
        pause,
        'failed',
        `the tool threw ${error.name}${unchecked === undefined ? '' : `; ${unchecked}`}`,
      );
    }
    return undefined;
  }

  /** Reports a call answered no; returns the approvers' reason when a decision gave one. */
  private async reportRejection(
    pause: { pauseId: string; callId: string },
    callId: string,
  ): Promise<string | undefined> {
    const reason = this.rejectReasons.get(callId);
    await this.report(pause, 'rejected', reason === undefined ? undefined : `reason: ${reason}`);
    return reason;
  }

  /**
   * The agent received this decision and did not act on it (ADK refused it, or the driver could
   * not resume with it): each of its gates is reported `refused` with `why`, and the card says
   * that nothing ran instead of "resumed". Never throws: the card is for people.
   */
  async reportRefusedDecision(decision: Decision, why: string): Promise<void> {
    for (const gate of decision.gates) {
      await this.report({ pauseId: decision.id, callId: gate.callId }, 'refused', why);
    }
  }

  /**
   * ADK records the refusal as the call's answer: the gate can never run the tool any more, so
   * it is closed on the service (the card says why) rather than left for someone to approve in
   * vain. A gate already decided answers 409, which changes nothing.
   */
  private async closeGate(pauseId: string, tool: string, why: string): Promise<void> {
    try {
      await this.client.cancel(
        pauseId,
        `the agent answered ${tool} itself, so it can no longer be approved (${why})`,
      );
    } catch (error) {
      if (error instanceof ApprovalsApiError && error.status === 409) return;
      this.logger.warn('adk-approvals: could not close the refused gate', {
        pauseId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Single use across processes: the service's first claim of the gate runs the call. */
  private async claimRun(pause: {
    pauseId: string;
    callId: string;
  }): Promise<'claimed' | 'claimed_elsewhere' | 'claim_unavailable'> {
    try {
      return (await this.client.claimRun(pause.pauseId, pause.callId))
        ? 'claimed'
        : 'claimed_elsewhere';
    } catch (error) {
      this.logger.warn('adk-approvals: could not claim the decision', {
        pauseId: pause.pauseId,
        error: error instanceof Error ? error.message : String(error),
      });
      return 'claim_unavailable';
    }
  }

  /** Asks the service for the decision of a pause this plugin posted, without waiting. */
  private async fetchDecision(callId: string): Promise<void> {
    const asked = this.askedIn.get(callId);
    if (asked === undefined) return;
    try {
      const poll = await this.client.decision(asked.pauseId, 0);
      if (poll.kind === 'decided') this.acceptDecision(poll.decision);
    } catch (error) {
      this.logger.warn('adk-approvals: could not read the decision', {
        pauseId: asked.pauseId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private async report(
    pause: { pauseId: string; callId: string },
    status: OutcomeStatus,
    detail?: string,
  ): Promise<void> {
    try {
      await this.client.reportOutcome(pause.pauseId, {
        callId: pause.callId,
        status,
        ...(detail === undefined ? {} : { detail }),
      });
    } catch (error) {
      // The outcome is for people reading the card; the tool's result must not depend on it.
      this.logger.warn('adk-approvals: could not report the outcome', {
        pauseId: pause.pauseId,
        status,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

const originalCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.unknown(),
});

/** What the card says of a call let through unchecked: which enforcement let it through. */
function uncheckedDetail(mode: EnforcementMode | undefined): string | undefined {
  return mode === undefined ? undefined : `the plugin's enforcement is ${mode}`;
}

function isAdkEvent(event: unknown): event is Event {
  return typeof event === 'object' && event !== null && 'invocationId' in event;
}

/** The tool call a credential request is for: JS writes `function_call_id`, Python `functionCallId`. */
function credentialToolCallId(args: Record<string, unknown> | undefined): string | undefined {
  const id = args?.function_call_id ?? args?.functionCallId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * A credential request as the service needs it for its notice: the request and the name of the
 * tool it is for. The auth config (client ids, secrets, scopes) and the tool's arguments never
 * leave the agent.
 */
function credentialNotice(
  event: Event,
  credentials: ReturnType<typeof getFunctionCalls>,
  names: ReadonlyMap<string, string>,
): unknown {
  const parts = credentials.flatMap((call) => {
    const toolCallId = credentialToolCallId(call.args);
    const tool = toolCallId === undefined ? undefined : names.get(toolCallId);
    return [
      {
        functionCall: {
          ...(call.id === undefined ? {} : { id: call.id }),
          name: REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
          args: toolCallId === undefined ? {} : { functionCallId: toolCallId },
        },
      },
      ...(toolCallId === undefined || tool === undefined
        ? []
        : [{ functionCall: { id: toolCallId, name: tool, args: {} } }]),
    ];
  });
  return {
    id: event.id,
    invocationId: event.invocationId,
    author: event.author,
    timestamp: event.timestamp,
    content: { role: event.content?.role ?? 'model', parts },
  };
}

/** The ask of a tool ADK raised no request for, as the service needs it for its notice. */
function unraisedNotice(event: Event, callId: string, tool: string): unknown {
  const hint = event.actions?.requestedToolConfirmations?.[callId]?.hint;
  return {
    id: event.id,
    invocationId: event.invocationId,
    author: event.author,
    timestamp: event.timestamp,
    content: {
      role: 'user',
      parts: [{ functionResponse: { id: callId, name: tool, response: {} } }],
    },
    actions: { requestedToolConfirmations: { [callId]: hint ? { hint } : {} } },
  };
}

function originalCallIdOf(args: Record<string, unknown> | undefined): string | undefined {
  const original = args?.originalFunctionCall;
  if (typeof original !== 'object' || original === null || !('id' in original)) return undefined;
  return typeof original.id === 'string' ? original.id : undefined;
}
