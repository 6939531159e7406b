import { WatchedFile, type WatchedFileLog } from '../watched-file.js';
import { loadRunbooksFile, type Runbooks, RunbooksError } from './runbooks-file.js';

/** The runbooks in force, re-read when `RUNBOOKS_FILE` changes (`WatchedFile`). */
export class RunbooksWatcher extends WatchedFile<Runbooks> {
  constructor(options: { path: string; initial: Runbooks; log: WatchedFileLog }) {
    const { log } = options;
    super({
      ...options,
      what: 'runbooks',
      load: loadRunbooksFile,
      versionOf: (runbooks) => runbooks.version,
      problemsOf: (error) =>
        error instanceof RunbooksError
          ? error.problems
          : [error instanceof Error ? error.message : String(error)],
      loaded: (runbooks, previous) =>
        log.info('runbooks reloaded', {
          source: runbooks.source,
          runbooks: runbooks.runbooks.length,
          version: runbooks.version.slice(0, 12),
          previous: previous.version.slice(0, 12),
        }),
    });
  }
}
