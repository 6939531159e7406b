import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Policy } from './policy.js';
import { loadPolicyFile, PolicyError } from './policy-file.js';

/**
 * The policy in force, re-read when its file changes (and on demand: `SIGHUP`). A file that no
 * longer loads keeps the policy in force: the problem is logged with its `file:line:col` and kept
 * for `/readyz` until a good file replaces it. Every reader asks `current()` per decision, so a
 * reload applies to the next call and the next click; pending cards are re-checked on their next
 * click, as ever.
 */

export interface PolicyWatcherLog {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export class PolicyWatcher {
  private policy: Policy;
  private problem: string | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reloading: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: {
      path: string;
      initial: Policy;
      log: PolicyWatcherLog;
      /** Editors write a file in several steps: changes this close together are read once. */
      debounceMs?: number;
    },
  ) {
    this.policy = options.initial;
  }

  current(): Policy {
    return this.policy;
  }

  /** Why the file on disk is not the policy in force; undefined when it is. */
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
      this.options.log.error('policy: cannot watch the policy file; SIGHUP still reloads it', {
        error: error.message,
      });
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
    const { log, path } = this.options;
    try {
      const policy = await loadPolicyFile(path);
      this.problem = undefined;
      if (policy.version === this.policy.version) return 'unchanged';
      const previous = this.policy.version;
      this.policy = policy;
      for (const warning of policy.warnings) log.info(`policy: ${warning}`);
      log.info('policy reloaded', {
        source: policy.source,
        rules: policy.rules.length,
        version: policy.version.slice(0, 12),
        previous: previous.slice(0, 12),
      });
      return 'reloaded';
    } catch (error) {
      const problems =
        error instanceof PolicyError
          ? error.problems
          : [error instanceof Error ? error.message : String(error)];
      this.problem = `the policy file does not load; the previous policy (${this.policy.version.slice(0, 12)}) stays in force: ${problems.join('; ')}`;
      log.error('policy: the file changed but does not load; keeping the policy in force', {
        version: this.policy.version.slice(0, 12),
        problems: problems.join('\n'),
      });
      return 'kept';
    }
  }
}
