import { readFileSync } from 'node:fs';

/**
 * Reads a captured exchange with the ADK API server from `test/fixtures/adk/` (verbatim copies
 * of the shared captures): `<name>.request.txt` and `<name>.response.txt`, each a raw HTTP
 * message. Deliberately independent of the SSE reader under test: frames are split on blank
 * lines, which is how the captured server writes them.
 */

const FIXTURES = new URL('../fixtures/adk/', import.meta.url);

export interface Capture {
  request: { method: string; path: string; body: unknown };
  response: { status: number; headers: Record<string, string>; body: Buffer };
  /** The JSON text of each `data:` frame of an event-stream response. */
  frames(): string[];
  /** Each frame's JSON, parsed. */
  frameJson(): unknown[];
}

export function loadCapture(name: string): Capture {
  const req = splitMessage(readFileSync(new URL(`${name}.request.txt`, FIXTURES)));
  const res = splitMessage(readFileSync(new URL(`${name}.response.txt`, FIXTURES)));
  const [method = '', path = ''] = req.startLine.split(' ');
  const requestBody = req.body.toString('utf8').trim();
  const frames = () =>
    res.body
      .toString('utf8')
      .split('\n\n')
      .filter((frame) => frame.trim() !== '')
      .map((frame) => {
        if (!frame.startsWith('data: ')) throw new Error(`${name}: a frame without "data: "`);
        return frame.slice('data: '.length);
      });
  return {
    request: { method, path, body: requestBody === '' ? undefined : JSON.parse(requestBody) },
    response: { status: Number(res.startLine.split(' ')[1]), headers: res.headers, body: res.body },
    frames,
    frameJson: () => frames().map((frame): unknown => JSON.parse(frame)),
  };
}

function splitMessage(raw: Buffer): {
  startLine: string;
  headers: Record<string, string>;
  body: Buffer;
} {
  // Captured responses use CRLF in the head; captured requests use LF.
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const [end, separator] = crlf !== -1 && (lf === -1 || crlf < lf) ? [crlf, 4] : [lf, 2];
  const head = (end === -1 ? raw : raw.subarray(0, end)).toString('utf8');
  const body = end === -1 ? Buffer.alloc(0) : raw.subarray(end + separator);
  const [startLine = '', ...headerLines] = head.split(/\r?\n/);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { startLine, headers, body };
}
