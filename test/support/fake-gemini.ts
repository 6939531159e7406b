import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';

/**
 * A stand-in for the Gemini API at the HTTP boundary, for agents whose model is a real Gemini
 * (`model: 'gemini-2.5-flash'`) and that cannot reach Google here. Both ADK flavours' clients
 * (`@google/genai`, Python `google-genai`) call it when `GOOGLE_GEMINI_BASE_URL` names it.
 *
 * Its answers are scripted: a user's prompt gets the function calls `turns` gives for that exact
 * text; a turn carrying function responses gets one line per response, `<tool> returned <JSON>`.
 * A prompt it has no turn for is answered 400 and remembered in `unknownPrompts`, so that a test
 * can say which prompt to script.
 */

export interface FunctionCall {
  name: string;
  args: Record<string, unknown>;
}

export interface FakeGemini {
  /** For `GOOGLE_GEMINI_BASE_URL`. */
  baseUrl: string;
  /** Prompts that had no scripted turn, in order. */
  unknownPrompts: string[];
  stop(): Promise<void>;
}

const partSchema = z.object({
  text: z.string().optional(),
  functionResponse: z
    .object({ name: z.string(), response: z.record(z.string(), z.unknown()).optional() })
    .optional(),
});
const requestSchema = z.object({
  contents: z.array(z.object({ role: z.string().optional(), parts: z.array(partSchema) })),
});
const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)/;

export async function startFakeGemini(
  turns: Readonly<Record<string, readonly FunctionCall[]>>,
): Promise<FakeGemini> {
  const unknownPrompts: string[] = [];
  const server = createServer((req, res) => {
    void answer(req, res).catch((error: unknown) =>
      reply(res, 500, { error: { code: 500, message: String(error), status: 'INTERNAL' } }),
    );
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const route = ROUTE.exec(req.url ?? '');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const parsed = requestSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    if (!route || req.method !== 'POST' || !parsed.success) {
      return reply(res, 404, {
        error: { code: 404, message: 'not a Gemini call', status: 'NOT_FOUND' },
      });
    }
    const last = parsed.data.contents.at(-1)?.parts ?? [];
    const responses = last.flatMap((part) =>
      part.functionResponse ? [part.functionResponse] : [],
    );
    let parts: unknown[];
    if (responses.length > 0) {
      parts = [
        {
          text: responses
            .map(
              (response) => `${response.name} returned ${JSON.stringify(response.response ?? {})}`,
            )
            .join('\n'),
        },
      ];
    } else {
      const prompt = last
        .map((part) => part.text ?? '')
        .join('')
        .trim();
      const calls = turns[prompt];
      if (calls === undefined) {
        unknownPrompts.push(prompt);
        return reply(res, 400, {
          error: {
            code: 400,
            message: `no scripted turn for "${prompt}"`,
            status: 'INVALID_ARGUMENT',
          },
        });
      }
      parts = calls.map((call) => ({ functionCall: call }));
    }
    const body = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      modelVersion: route[1],
    };
    if (route[2] === 'streamGenerateContent') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(body)}\r\n\r\n`);
      return;
    }
    reply(res, 200, body);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    unknownPrompts,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}
