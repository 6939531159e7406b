/** What the ADK server launcher logs to; the app's logger fits, as does any with these methods. */
export type LogFields = Record<string, string | number | boolean | undefined | null>;

export interface Log {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}
