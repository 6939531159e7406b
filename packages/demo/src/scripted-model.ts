import { BaseLlm, type BaseLlmConnection, type LlmRequest, type LlmResponse } from '@google/adk';
import { z } from 'zod';
import { llmResponses, type ScriptedReply, type ToolCall } from './scripted-reply.js';

/**
 * The demo agents' offline model: deterministic, no network, just enough language to show the
 * approval loop. From the last user message the framework sends it:
 *
 * - tool results (including rejected calls): one friendly sentence per result, from the skill
 *   that called the tool;
 * - the app's "Feedback from the human approvers ..." (or "Why these tool calls were not
 *   approved: ...") message: an acknowledgement quoting each reason, crediting it to whoever gave
 *   it (checked first, so a reason that mentions a request does not start it);
 * - a request one or more skills recognise: their tool calls, in the order they were asked for
 *   (two in one message give two calls in one turn);
 * - anything else: the agent's help sentence.
 */

type Content = LlmRequest['contents'][number];
type ToolArgs = Record<string, unknown>;

/** What the model knows about one tool: how people ask for it and how to talk about its results. */
export interface SkillDefinition<A extends ToolArgs, R> {
  tool: string;
  /** Requests for this tool in the user's words; each pattern needs the `g` and `i` flags. */
  asks: RegExp[];
  /** The calls one match asks for ("restart a and b" asks for two). */
  calls: (match: RegExpExecArray) => A[];
  /** The tool's parameters: parses the arguments of the call a result answers. */
  args: z.ZodType<A>;
  /** The tool's successful result; anything else is reported as it is. */
  result: z.ZodType<R>;
  done: (result: R, args: A | undefined) => string;
  /** A rejected call, as ADK reports it for `requireConfirmation` tools. */
  rejected: (args: A | undefined) => string;
}

/** A skill with its types erased, so that one script can hold skills of different tools. */
export interface Skill {
  tool: string;
  asks: readonly RegExp[];
  calls(match: RegExpExecArray): ToolArgs[];
  describe(response: unknown, args: unknown): string;
}

export interface DemoScript {
  skills: readonly Skill[];
  /** The answer to anything the skills do not recognise: what the agent can do. */
  help: string;
}

/** What ADK sends the model for a `requireConfirmation` call the approvers rejected. */
const REJECTED = 'This tool call is rejected.';
const toolError = z.object({ error: z.string() });

export function skill<A extends ToolArgs, R>(definition: SkillDefinition<A, R>): Skill {
  for (const pattern of definition.asks) {
    if (!pattern.global || !pattern.ignoreCase) {
      throw new Error(`${definition.tool}: pattern ${pattern} needs the g and i flags`);
    }
  }
  return {
    tool: definition.tool,
    asks: definition.asks,
    calls: definition.calls,
    describe(response, rawArgs) {
      const parsedArgs = definition.args.safeParse(rawArgs);
      const args = parsedArgs.success ? parsedArgs.data : undefined;
      const error = toolError.safeParse(response);
      if (error.success && error.data.error === REJECTED) return definition.rejected(args);
      const result = definition.result.safeParse(response);
      if (result.success) return definition.done(result.data, args);
      if (error.success) return `Sorry, that did not work: ${error.data.error}`;
      return `${definition.tool} returned ${JSON.stringify(response)}.`;
    },
  };
}

export class ScriptedDemoModel extends BaseLlm {
  constructor(private readonly script: DemoScript) {
    super({ model: 'scripted-demo' });
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream = false,
  ): AsyncGenerator<LlmResponse, void> {
    yield* llmResponses(replyTo(request.contents, this.script), stream);
  }

  override async connect(): Promise<BaseLlmConnection> {
    throw new Error('the scripted demo model does not support live connections');
  }
}

function replyTo(contents: readonly Content[], script: DemoScript): ScriptedReply {
  const lastUserIndex = contents.findLastIndex((content) => content.role === 'user');
  const parts = contents[lastUserIndex]?.parts ?? [];
  const responses = parts.flatMap((part) => (part.functionResponse ? [part.functionResponse] : []));
  if (responses.length > 0) {
    // ADK strips call ids before the model sees them, so results pair with calls by name, in order.
    const calls = lastCalls(contents.slice(0, Math.max(0, lastUserIndex)));
    const sentences = responses.map((response) => {
      const index = calls.findIndex((call) => call.name === response.name);
      const [call] = index === -1 ? [] : calls.splice(index, 1);
      const known = script.skills.find((s) => s.tool === response.name);
      return known
        ? known.describe(response.response, call?.args)
        : `${response.name} returned ${JSON.stringify(response.response)}.`;
    });
    return { kind: 'text', text: sentences.join('\n') };
  }
  const text = parts
    .flatMap((part) => (typeof part.text === 'string' ? [part.text] : []))
    .join('\n')
    .trim();
  if (FEEDBACK.test(text)) return { kind: 'text', text: acknowledgeFeedback(text) };
  const calls = callsFor(text, script.skills);
  return calls.length > 0 ? { kind: 'calls', calls } : { kind: 'text', text: script.help };
}

/** The function calls of the model's latest turn that made any. */
function lastCalls(contents: readonly Content[]): ToolCall[] {
  const turn = contents.findLast(
    (content) => content.role === 'model' && content.parts?.some((part) => part.functionCall),
  );
  return (turn?.parts ?? []).flatMap((part) =>
    part.functionCall?.name
      ? [{ name: part.functionCall.name, args: part.functionCall.args ?? {} }]
      : [],
  );
}

function callsFor(text: string, skills: readonly Skill[]): ToolCall[] {
  const found: { index: number; calls: ToolCall[] }[] = [];
  for (const known of skills) {
    for (const pattern of known.asks) {
      for (const match of text.matchAll(pattern)) {
        const calls = known.calls(match).map((args) => ({ name: known.tool, args }));
        found.push({ index: match.index, calls });
      }
    }
  }
  return found.sort((a, b) => a.index - b.index).flatMap(({ calls }) => calls);
}

/**
 * The message the app sends after a resume when calls were refused with a reason: people's
 * rejections as feedback from the approvers; anything else (a policy's denial, an expiry, a
 * withdrawal) under a heading of its own, each line saying who refused it.
 */
const FEEDBACK =
  /^(?:feedback from the human approvers\b|why these tool calls were not approved:)/i;
const FROM_APPROVERS = /^feedback from the human approvers\b/i;
const FEEDBACK_LINE = /^\s*-\s*([\w.-]+):\s*(.+?)\s*$/gm;

/** Thanks approvers for their reasons; credits anything else to whoever the line names. */
function acknowledgeFeedback(text: string): string {
  const fromApprovers = FROM_APPROVERS.test(text);
  const sentences = [...text.matchAll(FEEDBACK_LINE)].map(([, tool, reason]) =>
    fromApprovers
      ? `I won't retry ${tool}: the approvers said “${reason}”.`
      : `I won't retry ${tool}: ${reason?.replace(/\.$/, '')}.`,
  );
  return [fromApprovers ? 'Thanks for the feedback.' : 'Understood.', ...sentences].join(' ');
}
