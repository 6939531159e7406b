import { AdkError } from './errors.js';

/** Why a finished call's controller is aborted: to end whatever of the request is still open. */
const SCOPE_CLOSED = new Error('the call is over');

/**
 * The lifetime of one HTTP call: the caller's `AbortSignal` and the client's time limits abort
 * one controller, and whatever the call then throws is turned into an `AdkError` that says which
 * of them stopped it.
 */
export class CallScope {
  private readonly controller = new AbortController();
  private stoppedBy: AdkError | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly onCallerAbort = () => {
    this.stop(new AdkError('aborted', `${this.what} was aborted by the caller`));
  };

  constructor(
    private readonly what: string,
    private readonly callerSignal?: AbortSignal,
  ) {
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Pass this to the request: aborting it ends the request and its body. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Throws the reason the call was stopped, if it was. */
  throwIfStopped(): void {
    if (this.stoppedBy) throw this.stoppedBy;
  }

  /**
   * Aborts the call with a `timeout` error after `ms`. `reset()` starts the wait again;
   * `pause()` stops it until the next `reset()`.
   */
  limit(ms: number, message: string): { reset(): void; pause(): void } {
    let timer: NodeJS.Timeout | undefined;
    const pause = () => {
      if (timer === undefined) return;
      clearTimeout(timer);
      this.timers.delete(timer);
      timer = undefined;
    };
    const reset = () => {
      pause();
      if (this.stoppedBy) return;
      timer = setTimeout(() => this.stop(new AdkError('timeout', `${this.what} ${message}`)), ms);
      timer.unref();
      this.timers.add(timer);
    };
    reset();
    return { reset, pause };
  }

  /** Whatever a request or a body read threw, as the `AdkError` it means. */
  toError(error: unknown): AdkError {
    if (error instanceof AdkError) return error;
    if (this.stoppedBy) return this.stoppedBy;
    return new AdkError('network', `${this.what} failed: ${describeNetworkError(error)}`, {
      cause: error,
    });
  }

  /** Stops the timers and releases the connection if it is still open. */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    // A reason of its own: `abort()` without one builds a DOMException, at every call's end.
    if (!this.controller.signal.aborted) this.controller.abort(SCOPE_CLOSED);
  }

  private stop(reason: AdkError): void {
    if (this.stoppedBy) return;
    this.stoppedBy = reason;
    this.controller.abort(reason);
  }
}

/** A network error with its system code, where the error keeps it in `cause`. */
function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  const code = typeof cause === 'object' && cause !== null ? Reflect.get(cause, 'code') : undefined;
  return typeof code === 'string' ? `${error.message} (${code})` : error.message;
}
