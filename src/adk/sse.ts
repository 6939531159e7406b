import { AdkError } from './errors.js';

/**
 * A server-sent events reader after the WHATWG event-stream rules: lines end in LF, CRLF or CR
 * (a CRLF split across chunks is one line end); `:` lines are comments (keep-alives); `data:`
 * lines of one frame are joined with `\n`; a blank line ends a frame; `event:`, `id:` and
 * `retry:` are read, unknown fields ignored. Unlike the browser, a last frame without a closing
 * blank line is still delivered, since a server may close right after it. Bytes are decoded as
 * UTF-8 across chunk boundaries.
 */

export interface SseFrame {
  /** The `data:` lines, joined with `\n`. */
  data: string;
  /** The `event:` field, when the frame had one. */
  event?: string;
  id?: string;
  retry?: number;
}

export interface SseReaderOptions {
  /**
   * The largest frame accepted, in characters (at most its size in UTF-8 bytes). A larger frame
   * is an `AdkError('protocol')` instead of unbounded memory. Default 16 MiB.
   */
  maxFrameSize?: number;
}

export const DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024;

const LINE_END = /\r\n|\r|\n/g;

/** An incremental parser: feed it chunks, collect the frames each chunk completes. */
export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly maxFrameSize: number;
  /** The current line so far, in pieces, so a long line is not copied once per chunk. */
  private line: string[] = [];
  private lineLength = 0;
  /** The previous chunk ended in CR: a LF at the start of the next one belongs to it. */
  private afterCr = false;
  private data: string[] = [];
  private dataSize = 0;
  private event: string | undefined;
  private id: string | undefined;
  private retry: number | undefined;
  private ended = false;

  constructor(options: SseReaderOptions = {}) {
    this.maxFrameSize = options.maxFrameSize ?? DEFAULT_MAX_FRAME_SIZE;
  }

  /** Parses the next bytes; returns the frames they complete. */
  push(chunk: Uint8Array): SseFrame[] {
    if (this.ended) throw new Error('SseParser.push after end');
    return this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** The stream ended: returns the last frame when it had no closing blank line. */
  end(): SseFrame[] {
    if (this.ended) return [];
    this.ended = true;
    const frames = this.feed(this.decoder.decode());
    if (this.lineLength > 0) this.takeLine(this.line.join(''), frames);
    this.dispatch(frames);
    return frames;
  }

  private feed(text: string): SseFrame[] {
    const frames: SseFrame[] = [];
    if (text === '') return frames;
    let start = 0;
    if (this.afterCr && text.startsWith('\n')) start = 1;
    this.afterCr = false;
    LINE_END.lastIndex = start;
    for (let match = LINE_END.exec(text); match !== null; match = LINE_END.exec(text)) {
      this.grow(match.index - start);
      this.line.push(text.slice(start, match.index));
      const line = this.line.join('');
      this.line = [];
      this.lineLength = 0;
      this.takeLine(line, frames);
      start = match.index + match[0].length;
      if (match[0] === '\r' && start === text.length) this.afterCr = true;
    }
    if (start < text.length) {
      this.grow(text.length - start);
      this.line.push(text.slice(start));
    }
    return frames;
  }

  private grow(by: number): void {
    this.lineLength += by;
    if (this.dataSize + this.lineLength > this.maxFrameSize) {
      throw new AdkError(
        'protocol',
        `an SSE frame is larger than the limit of ${this.maxFrameSize} characters`,
      );
    }
  }

  private takeLine(line: string, frames: SseFrame[]): void {
    if (line === '') {
      this.dispatch(frames);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.dataSize += value.length + 1;
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
    }
  }

  private dispatch(frames: SseFrame[]): void {
    if (this.data.length > 0) {
      const frame: SseFrame = { data: this.data.join('\n') };
      if (this.event !== undefined) frame.event = this.event;
      if (this.id !== undefined) frame.id = this.id;
      if (this.retry !== undefined) frame.retry = this.retry;
      frames.push(frame);
    }
    // The last event id persists across frames in the standard; nothing here needs it.
    this.data = [];
    this.event = undefined;
    this.id = undefined;
    this.retry = undefined;
    this.dataSize = 0;
  }
}

/** Reads a byte stream (e.g. a fetch response body) as SSE frames, until it ends. */
export async function* readSseFrames(
  body: AsyncIterable<Uint8Array>,
  options: SseReaderOptions = {},
): AsyncGenerator<SseFrame, void> {
  const parser = new SseParser(options);
  for await (const chunk of body) {
    yield* parser.push(chunk);
  }
  yield* parser.end();
}
