import type { ApproverDirectoryClient } from '../../../src/approvals/policy.js';

/**
 * A stand-in for the two Web API methods the directory calls, answering from tables and counting
 * calls. `hold()` keeps answers back until `release()`, to catch concurrent lookups in flight.
 */
export class FakeDirectoryClient implements ApproverDirectoryClient {
  groups = new Map<string, string[]>();
  /** Each channel's member pages, in order. */
  channels = new Map<string, string[][]>();
  /** Answer every call with this instead (a Slack error body, or a thrown error). */
  failure: { response: unknown } | { thrown: unknown } | undefined;
  readonly calls: { method: string; args: Record<string, unknown> }[] = [];
  private held: Promise<void> | undefined;
  private releaseHeld: (() => void) | undefined;

  readonly usergroups = {
    users: {
      list: async (args: { usergroup: string }): Promise<unknown> => {
        this.calls.push({ method: 'usergroups.users.list', args });
        await this.held;
        return this.answer(() => {
          const users = this.groups.get(args.usergroup);
          return users ? { ok: true, users } : { ok: false, error: 'no_such_subteam' };
        });
      },
    },
  };

  readonly conversations = {
    members: async (args: {
      channel: string;
      cursor?: string;
      limit?: number;
    }): Promise<unknown> => {
      this.calls.push({ method: 'conversations.members', args });
      await this.held;
      return this.answer(() => {
        const pages = this.channels.get(args.channel);
        if (!pages) return { ok: false, error: 'channel_not_found' };
        const index = args.cursor === undefined ? 0 : Number(args.cursor.replace('page-', ''));
        const next = index + 1 < pages.length ? `page-${index + 1}` : '';
        return { ok: true, members: pages[index] ?? [], response_metadata: { next_cursor: next } };
      });
    },
  };

  callsTo(method: string): number {
    return this.calls.filter((call) => call.method === method).length;
  }

  hold(): void {
    this.held = new Promise((resolve) => {
      this.releaseHeld = resolve;
    });
  }

  release(): void {
    this.releaseHeld?.();
    this.held = undefined;
  }

  private answer(normal: () => unknown): unknown {
    if (this.failure && 'thrown' in this.failure) throw this.failure.thrown;
    if (this.failure) return this.failure.response;
    return normal();
  }
}
