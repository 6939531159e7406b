/** The message of anything thrown, for logs and notices. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether a connection was reset under a request (`ECONNRESET`, `EPIPE`): on one kept alive from
 * an earlier request, before any answer, that is the server closing it as idle as the request
 * went out.
 */
export function isConnectionReset(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    (error.code === 'ECONNRESET' || error.code === 'EPIPE')
  );
}

/** Whether a `listen` failed because another process holds the port. */
export function isAddressInUse(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'EADDRINUSE';
}

/** A port some variable names is taken: the start stops with this, naming the variable. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(variable: string, port: number, options?: ErrorOptions) {
    super(
      `${variable}=${port}: the port is in use by another process (EADDRINUSE). Stop that process (another npm start?), or set ${variable} to a free port`,
      options,
    );
  }
}
