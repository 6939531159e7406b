import { StringDecoder } from 'node:string_decoder';

// biome-ignore lint/suspicious/noControlCharactersInRegex: an ANSI escape starts with ESC.
const ANSI_COLOUR = /\x1b\[[0-9;]*m/g;

/**
 * What a child process printed: the last `limit` bytes kept for error messages, and each
 * complete line handed to `onLine`, without terminal colour codes (the ADK CLI colours its
 * output whatever NO_COLOR says).
 */
export class ServerOutput {
  private chunks: Buffer[] = [];
  private size = 0;
  private partialLine = '';
  // A chunk may end inside a multi-byte character.
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly limit: number,
    private readonly onLine: (line: string) => void = () => {},
  ) {}

  add(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 1) {
      const first = this.chunks.shift();
      this.size -= first?.length ?? 0;
    }
    const lines = (this.partialLine + this.decoder.write(chunk)).split('\n');
    this.partialLine = lines.pop() ?? '';
    for (const line of lines) {
      const clean = line.replace(ANSI_COLOUR, '').trimEnd();
      if (clean !== '') this.onLine(clean);
    }
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8').replace(ANSI_COLOUR, '');
  }
}
