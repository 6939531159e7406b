import type { RunRecord, RunRoot, RunStatus, RunStatusStore, RunThreadRef } from './run-status.js';
import type { ThreadSession, ThreadSessions } from './thread-sessions.js';

/**
 * One record per run thread (issue 22): what its root message says (who asked which app what),
 * where the run stands, and which ADK session replies in the thread continue. Status board,
 * thread replies and run recovery all read this record; the run's lease stays with its intent,
 * which is keyed by run id because it is recorded before the thread exists.
 */
export interface RunThreadRecords extends ThreadSessions, RunStatusStore {}

interface MemoryRunThread {
  root?: RunRoot;
  status?: RunStatus;
  session?: Omit<ThreadSession, 'channelId' | 'threadTs'>;
}

/** The in-process twin, for a single instance without Redis: one entry per thread. */
export class MemoryRunThreadRecords implements RunThreadRecords {
  private readonly threads = new Map<string, MemoryRunThread>();
  private readonly events = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async saveRoot(thread: RunThreadRef, root: RunRoot): Promise<void> {
    const record = this.entry(thread);
    record.root = structuredClone(root);
    record.status = { kind: 'running' };
  }

  async setStatus(thread: RunThreadRef, status: RunStatus): Promise<RunRecord | undefined> {
    const record = this.threads.get(keyOf(thread));
    if (record?.root === undefined) return undefined;
    record.status = structuredClone(status);
    return structuredClone({ root: record.root, status: record.status });
  }

  async read(thread: RunThreadRef): Promise<RunRecord | undefined> {
    const record = this.threads.get(keyOf(thread));
    if (record?.root === undefined || record.status === undefined) return undefined;
    return structuredClone({ root: record.root, status: record.status });
  }

  async save(session: ThreadSession): Promise<void> {
    const { channelId, threadTs, ...rest } = session;
    this.entry({ channelId, threadTs }).session = { ...rest };
  }

  async find(channelId: string, threadTs: string): Promise<ThreadSession | undefined> {
    const session = this.threads.get(keyOf({ channelId, threadTs }))?.session;
    return session && { channelId, threadTs, ...session };
  }

  async notePause(channelId: string, threadTs: string, pauseId: string): Promise<void> {
    const session = this.threads.get(keyOf({ channelId, threadTs }))?.session;
    if (session !== undefined) session.lastPauseId = pauseId;
  }

  async claimEvent(eventId: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const until = this.events.get(eventId);
    if (until !== undefined && until > now) return false;
    this.events.set(eventId, now + ttlMs);
    return true;
  }

  private entry(thread: RunThreadRef): MemoryRunThread {
    const key = keyOf(thread);
    const found = this.threads.get(key);
    if (found !== undefined) return found;
    const created: MemoryRunThread = {};
    this.threads.set(key, created);
    return created;
  }
}

function keyOf(thread: RunThreadRef): string {
  return `${thread.channelId}:${thread.threadTs}`;
}
