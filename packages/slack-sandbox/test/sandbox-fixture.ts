import { createServer, type IncomingMessage } from 'node:http';
import { webApi } from '@slack/bolt';
import { type Sandbox, type SandboxOptions, startSandbox } from '../src/index.js';

export const BOT_TOKEN = 'xoxb-test-sandbox-token';
export const SIGNING_SECRET = 'test-signing-secret';

export function startTestSandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  return startSandbox({ botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET, ...options });
}

const quietLogger: webApi.Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => webApi.LogLevel.ERROR,
  setName: () => {},
};

/** The real Slack Web API client, pointed at the sandbox. */
export function webClient(
  sandbox: Sandbox,
  options: webApi.WebClientOptions = {},
  token: string = BOT_TOKEN,
): webApi.WebClient {
  return new webApi.WebClient(token, {
    slackApiUrl: sandbox.apiUrl,
    retryConfig: { retries: 0 },
    logger: quietLogger,
    ...options,
  });
}

/** The Slack error code of a call that must fail with `ok: false`. */
export async function slackError(
  call: Promise<unknown>,
): Promise<webApi.WebAPIPlatformError['data']> {
  try {
    await call;
  } catch (error) {
    if (error instanceof webApi.WebAPIPlatformError) return error.data;
    throw error;
  }
  throw new Error('expected the call to fail with a Slack platform error');
}

export type AppAnswer = { status?: number; body?: string; contentType?: string };

/**
 * A bare app endpoint that records each request's form fields and answers with `answer`
 * (default: 200, no body): enough to obtain trigger ids and response URLs without Bolt.
 */
export async function startRecordingApp(
  answer: (request: URLSearchParams) => AppAnswer | Promise<AppAnswer> = () => ({}),
): Promise<{
  url: string;
  requests: URLSearchParams[];
  stop: () => Promise<void>;
}> {
  const requests: URLSearchParams[] = [];
  const read = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    return text;
  };
  const server = createServer((req, res) => {
    read(req).then(async (text) => {
      const request = new URLSearchParams(text);
      requests.push(request);
      const { status = 200, body = '', contentType = 'application/json' } = await answer(request);
      res.writeHead(status, body === '' ? {} : { 'content-type': contentType });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}/slack/events`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
