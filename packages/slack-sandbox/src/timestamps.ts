/**
 * Slack message timestamps: `<unix seconds>.<6 digits>`, unique per workspace and increasing,
 * which is why they double as message ids.
 */
export class TimestampSource {
  private lastMicros = 0;

  constructor(private readonly nowMs: () => number = Date.now) {}

  next(): string {
    this.lastMicros = Math.max(this.nowMs() * 1000, this.lastMicros + 1);
    const seconds = Math.floor(this.lastMicros / 1_000_000);
    const micros = this.lastMicros % 1_000_000;
    return `${seconds}.${String(micros).padStart(6, '0')}`;
  }
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Ids shaped like Slack's (`V0A1B2C3D4E`): a prefix, then uppercase letters and digits. */
export function slackId(prefix: string, length = 10, random: () => number = Math.random): string {
  let id = prefix;
  for (let i = 0; i < length; i++) id += ID_ALPHABET[Math.floor(random() * ID_ALPHABET.length)];
  return id;
}
