import { BaseLlm, type BaseLlmConnection, type LlmRequest, type LlmResponse } from '@google/adk';
import {
  llmResponses,
  type ScriptedReply,
  type ToolCall,
} from '../../../packages/demo/src/scripted-reply.js';

/**
 * A deterministic stand-in for Gemini, so the real `adk api_server` can run agents in tests
 * without a network. Its whole behaviour, from the last user message the framework sends it:
 *
 * - function responses (a tool ran, or was rejected): one line per response,
 *   `Tool <name> returned <JSON of the response>`;
 * - text that matches one or more triggers: one function call per match, in the order they
 *   appear in the text (two matches give two calls in one model turn);
 * - any other text: `Noted: <text>`, which proves the model saw a follow-up message.
 *
 * ADK leaves `adk_request_confirmation` events out of what it sends the model, so after a
 * resume the last user message is the gated tool's response.
 */

type Content = LlmRequest['contents'][number];
type Part = NonNullable<Content['parts']>[number];

/** A prompt pattern (must have the `g` flag) and the tool call each match of it asks for. */
export interface Trigger {
  pattern: RegExp;
  toCall: (match: RegExpExecArray) => ToolCall;
}

export const NOTHING_TO_DO = 'Nothing to do.';

export class ScriptedLlm extends BaseLlm {
  constructor(private readonly triggers: readonly Trigger[]) {
    super({ model: 'scripted' });
    for (const { pattern } of triggers) {
      if (!pattern.global) throw new Error(`trigger ${pattern} needs the g flag`);
    }
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream = false,
  ): AsyncGenerator<LlmResponse, void> {
    yield* llmResponses(this.replyTo(request.contents), stream);
  }

  override async connect(): Promise<BaseLlmConnection> {
    throw new Error('ScriptedLlm does not support live connections');
  }

  private replyTo(contents: readonly Content[]): ScriptedReply {
    const lastUser = contents.findLast((content) => content.role === 'user');
    const parts: Part[] = lastUser?.parts ?? [];
    const responses = parts.flatMap((part) =>
      part.functionResponse ? [part.functionResponse] : [],
    );
    if (responses.length > 0) {
      const lines = responses.map(
        (response) => `Tool ${response.name} returned ${JSON.stringify(response.response)}`,
      );
      return { kind: 'text', text: lines.join('\n') };
    }
    const text = parts
      .flatMap((part) => (typeof part.text === 'string' ? [part.text] : []))
      .join('\n')
      .trim();
    if (text === '') return { kind: 'text', text: NOTHING_TO_DO };
    const calls = this.callsFor(text);
    if (calls.length > 0) return { kind: 'calls', calls };
    return { kind: 'text', text: `Noted: ${text}` };
  }

  private callsFor(text: string): ToolCall[] {
    const found: { index: number; call: ToolCall }[] = [];
    for (const trigger of this.triggers) {
      for (const match of text.matchAll(trigger.pattern)) {
        found.push({ index: match.index, call: trigger.toCall(match) });
      }
    }
    return found.sort((a, b) => a.index - b.index).map(({ call }) => call);
  }
}
