import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * A configuration file in force, re-read when it changes (and on demand: `SIGHUP`). A file that
 * no longer loads keeps the one in force: the problem is logged with its `file:line:col` and kept
 * for `/readyz` until a good file replaces it. Readers ask `current()` each time, so a reload
 * applies to the next use. The policy (`policy/policy-watcher.ts`) and the runbooks are read so.
 */

export interface WatchedFileLog {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface WatchedFileOptions<T> {
  path: string;
  initial: T;
  /** What the file is, in log lines: `policy`, `runbooks`. */
  what: string;
  load(path: string): Promise<T>;
  /** Same version: the reload changed nothing. */
  versionOf(value: T): string;
  /** The problems of a file that does not load, one line each. */
  problemsOf(error: unknown): readonly string[];
  /** Told of a new value in force (to log what it holds). */
  loaded(value: T, previous: T): void;
  log: WatchedFileLog;
  /** Editors write a file in several steps: changes this close together are read once. */
  debounceMs?: number;
}

export class WatchedFile<T> {
  private value: T;
  private problem: string | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reloading: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: WatchedFileOptions<T>) {
    this.value = options.initial;
  }

  current(): T {
    return this.value;
  }

  /** Why the file on disk is not the one in force; undefined when it is. */
  brokenFile(): string | undefined {
    return this.problem;
  }

  /**
   * Watches the file's folder, not the file: editors and config maps replace a file by renaming
   * another over it, which ends a watch on the file itself.
   */
  start(): void {
    const name = basename(this.options.path);
    this.watcher = watch(dirname(this.options.path), (_event, changed) => {
      if (changed === null || changed.toString() === name) this.scheduleReload();
    });
    this.watcher.on('error', (error) => {
      this.options.log.error(
        `${this.options.what}: cannot watch the file; SIGHUP still reloads it`,
        { error: error.message },
      );
    });
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** Reads the file now; resolves once it is in force or refused. One reload at a time. */
  reload(): Promise<'reloaded' | 'unchanged' | 'kept'> {
    const next = this.reloading.then(() => this.readFile());
    this.reloading = next.catch(() => undefined);
    return next;
  }

  private scheduleReload(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.reload();
    }, this.options.debounceMs ?? 100);
  }

  private async readFile(): Promise<'reloaded' | 'unchanged' | 'kept'> {
    const { log, path, what, versionOf } = this.options;
    try {
      const value = await this.options.load(path);
      this.problem = undefined;
      if (versionOf(value) === versionOf(this.value)) return 'unchanged';
      const previous = this.value;
      this.value = value;
      this.options.loaded(value, previous);
      return 'reloaded';
    } catch (error) {
      const problems = this.options.problemsOf(error);
      const version = versionOf(this.value).slice(0, 12);
      this.problem = `the ${what} file does not load; the previous ${what} (${version}) stays in force: ${problems.join('; ')}`;
      log.error(`${what}: the file changed but does not load; keeping the ${what} in force`, {
        version,
        problems: problems.join('\n'),
      });
      return 'kept';
    }
  }
}
