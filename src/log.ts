import { format } from 'node:util';
import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { LogLevel as ConfiguredLevel, LogFormat } from './config.js';
import { correlationId } from './correlation.js';

/**
 * One line per entry. `text` (the default): time, level, component, message, then `key=value`
 * fields. `json` (LOG_FORMAT=json): one JSON object per line, `time`, `level`, `logger`, `msg`,
 * `correlationId` and the fields as keys, for log collectors. Either way the correlation id of
 * the click or run being handled is added (see correlation.ts).
 * Tool arguments and payloads are only ever passed at debug level: they may hold secrets.
 */
export type Fields = Record<string, string | number | boolean | undefined | null>;

export interface Log {
  debug(message: string, fields?: Fields): void;
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
  child(name: string): Log;
}

const SEVERITY: Record<ConfiguredLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type Sink = (line: string, level: ConfiguredLevel) => void;

const stderrSink: Sink = (line) => {
  process.stderr.write(`${line}\n`);
};

/** Shared by a logger and its children. */
interface LevelHolder {
  level: ConfiguredLevel;
  format: LogFormat;
}

export class LineLogger implements Log, BoltLogger {
  constructor(
    private readonly holder: LevelHolder,
    private name: string,
    private readonly sink: Sink,
  ) {}

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }

  child(name: string): LineLogger {
    return new LineLogger(this.holder, this.name ? `${this.name}:${name}` : name, this.sink);
  }

  // The three methods below make this usable as Bolt's and the Web API client's logger.
  /**
   * Ignored: the level is `LOG_LEVEL`'s. Bolt's `App` and the Web API client both call
   * `setLevel(INFO)` on the logger they are given, which would otherwise override it for all.
   */
  setLevel(_level: LogLevel): void {}
  getLevel(): LogLevel {
    return toBoltLevel(this.holder.level);
  }
  setName(name: string): void {
    this.name = name;
  }

  private write(level: ConfiguredLevel, args: unknown[]): void {
    if (SEVERITY[level] < SEVERITY[this.holder.level]) return;
    const [first, second, ...rest] = args;
    const fields = rest.length === 0 && isFields(second) ? second : undefined;
    const message = fields ? String(first) : format(...args);
    const id = correlationId();
    const time = new Date().toISOString();
    if (this.holder.format === 'json') {
      const entry = {
        ...fields,
        time,
        level,
        logger: this.name,
        msg: message,
        ...(id === undefined ? {} : { correlationId: id }),
      };
      this.sink(JSON.stringify(entry), level);
      return;
    }
    const tail = (fields ? formatFields(fields) : '') + (id === undefined ? '' : ` ref=${id}`);
    const line = `${time} ${level.toUpperCase().padEnd(5)} [${this.name}] ${message}${tail}`;
    this.sink(line, level);
  }
}

export function createLog(
  level: ConfiguredLevel,
  name = 'app',
  sink: Sink = stderrSink,
  format: LogFormat = 'text',
): LineLogger {
  return new LineLogger({ level, format }, name, sink);
}

function toBoltLevel(level: ConfiguredLevel): LogLevel {
  switch (level) {
    case 'debug':
      return LogLevel.DEBUG;
    case 'info':
      return LogLevel.INFO;
    case 'warn':
      return LogLevel.WARN;
    case 'error':
      return LogLevel.ERROR;
  }
}

function isFields(value: unknown): value is Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (value instanceof Error) return false;
  return Object.values(value).every(
    (v) => v === undefined || v === null || ['string', 'number', 'boolean'].includes(typeof v),
  );
}

function formatFields(fields: Fields): string {
  let out = '';
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const text = String(value);
    out += ` ${key}=${/[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text}`;
  }
  return out;
}
