/**
 * What the sandbox logs to. Any logger with these methods fits (the app passes its own); the
 * CLI writes lines to stderr.
 */
export type LogFields = Record<string, string | number | boolean | undefined | null>;

export interface Log {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(name: string): Log;
}

export const silentLog: Log = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLog,
};

/** One line per entry on stderr: time, level, component, message, `key=value` fields; no debug. */
export function stderrLog(name: string): Log {
  const write =
    (level: string) =>
    (message: string, fields: LogFields = {}): void => {
      const tail = Object.entries(fields)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => ` ${key}=${fieldValue(String(value))}`)
        .join('');
      process.stderr.write(`${new Date().toISOString()} ${level} [${name}] ${message}${tail}\n`);
    };
  return {
    debug: () => {},
    info: write('INFO '),
    warn: write('WARN '),
    error: write('ERROR'),
    child: (child) => stderrLog(`${name}:${child}`),
  };
}

/** Quoted when it would otherwise run into the next field. */
function fieldValue(text: string): string {
  return /[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text;
}
