import { WatchedFile, type WatchedFileLog } from '../watched-file.js';
import type { Policy } from './policy.js';
import { loadPolicyFile, PolicyError } from './policy-file.js';

/**
 * The policy in force, re-read when its file changes (`WatchedFile`). Every reader asks
 * `current()` per decision, so a reload applies to the next call and the next click; pending
 * cards are re-checked on their next click, as ever.
 */

export type PolicyWatcherLog = WatchedFileLog;

export class PolicyWatcher extends WatchedFile<Policy> {
  constructor(options: {
    path: string;
    initial: Policy;
    log: PolicyWatcherLog;
    debounceMs?: number;
  }) {
    const { log } = options;
    super({
      ...options,
      what: 'policy',
      load: loadPolicyFile,
      versionOf: (policy) => policy.version,
      problemsOf: (error) =>
        error instanceof PolicyError
          ? error.problems
          : [error instanceof Error ? error.message : String(error)],
      loaded: (policy, previous) => {
        for (const warning of policy.warnings) log.info(`policy: ${warning}`);
        log.info('policy reloaded', {
          source: policy.source,
          rules: policy.rules.length,
          version: policy.version.slice(0, 12),
          previous: previous.version.slice(0, 12),
        });
      },
    });
  }
}
