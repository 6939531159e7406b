import type { LlmResponse } from '@google/adk';

/** A call a scripted model asks for. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** What a scripted model decided to say: tool calls, or text. */
export type ScriptedReply = { kind: 'calls'; calls: ToolCall[] } | { kind: 'text'; text: string };

/**
 * A reply as ADK expects it from a model: the calls together in one turn; text whole, or, when
 * ADK asks for streaming, as two partial chunks followed by the whole text once more.
 */
export async function* llmResponses(
  reply: ScriptedReply,
  stream: boolean,
): AsyncGenerator<LlmResponse, void> {
  if (reply.kind === 'calls') {
    yield {
      content: {
        role: 'model',
        parts: reply.calls.map((call) => ({ functionCall: { name: call.name, args: call.args } })),
      },
      turnComplete: true,
    };
    return;
  }
  if (stream) {
    const half = Math.ceil(reply.text.length / 2);
    for (const chunk of [reply.text.slice(0, half), reply.text.slice(half)]) {
      yield { content: { role: 'model', parts: [{ text: chunk }] }, partial: true };
    }
  }
  yield { content: { role: 'model', parts: [{ text: reply.text }] }, turnComplete: true };
}
