import { keyCoversApp } from '../approvals/api-keys/api-key-scope.js';
import type { ApiKey } from '../approvals/api-keys/api-keys-file.js';
import { runEnded } from '../approvals/started-runs.js';
import type { ApiRuns } from '../workflow/api-run-control.js';
import { RunStartRefused } from '../workflow/api-runs.js';
import type { ApiAnswer } from './responses.js';
import { parseRunRequest } from './run-request.js';

/**
 * `POST /v1/runs`, `GET /v1/runs/{id}` and `DELETE /v1/runs/{id}` for keys with `runs: true`:
 * a run started, read back or cancelled. Another key's run, or one of an app the key does not
 * cover, is "not found" to it.
 */

const FORBIDDEN: ApiAnswer = {
  kind: 'forbidden',
  why: 'this API key may not start or read runs (runs: true in the API keys file)',
};

export async function startRun(key: ApiKey, runs: ApiRuns, body: unknown): Promise<ApiAnswer> {
  if (!key.runs) return FORBIDDEN;
  const parsed = parseRunRequest(body);
  if (parsed.kind === 'invalid') return parsed;
  const { request } = parsed;
  if (!keyCoversApp(key, request.app)) {
    return { kind: 'forbidden', why: 'app: outside the apps this API key may start runs for' };
  }
  try {
    const { run, joined } = await runs.start({
      app: request.app,
      prompt: request.prompt,
      channel: request.channel,
      startedBy: request.startedBy,
      source: request.source ?? 'api',
      keyId: key.name,
      ...(request.dedupeKey === undefined ? {} : { dedupeKey: request.dedupeKey }),
      ...(request.labels === undefined ? {} : { labels: request.labels }),
    });
    const answer = await runs.view(run.id);
    const body = runBody(answer?.run ?? run, answer?.pending ?? [], joined);
    return joined ? { kind: 'ok', body } : { kind: 'created', body };
  } catch (error) {
    if (error instanceof RunStartRefused) return { kind: 'invalid', problems: [error.problem] };
    throw error;
  }
}

export async function readRun(key: ApiKey, runs: ApiRuns, id: string): Promise<ApiAnswer> {
  if (!key.runs) return FORBIDDEN;
  const found = await ownRun(key, runs, id);
  if (found === undefined) return { kind: 'not_found' };
  return { kind: 'ok', body: runBody(found.run, found.pending) };
}

export async function cancelRun(key: ApiKey, runs: ApiRuns, id: string): Promise<ApiAnswer> {
  if (!key.runs) return FORBIDDEN;
  const found = await ownRun(key, runs, id);
  if (found === undefined) return { kind: 'not_found' };
  if (runEnded(found.run)) {
    return { kind: 'conflict', why: `the run has ended already (${found.run.status})` };
  }
  await runs.cancel(id, key.name);
  const after = await runs.view(id);
  if (after?.run.status !== 'cancelled') {
    return { kind: 'conflict', why: `the run has ended already (${after?.run.status ?? 'gone'})` };
  }
  return { kind: 'ok', body: runBody(after.run, after.pending) };
}

async function ownRun(key: ApiKey, runs: ApiRuns, id: string) {
  const found = await runs.view(id);
  if (found === undefined) return undefined;
  if (found.run.keyId !== key.name || !keyCoversApp(key, found.run.app)) return undefined;
  return found;
}

function runBody(
  run: Awaited<ReturnType<ApiRuns['get']>> & object,
  pending: readonly string[],
  joined = false,
): object {
  return {
    id: run.id,
    status: run.status,
    app: run.app,
    channel: run.channel,
    threadTs: run.threadTs ?? null,
    ...(run.dedupeKey === undefined ? {} : { dedupeKey: run.dedupeKey }),
    joined,
    startedBy: run.startedBy,
    source: run.source,
    labels: run.labels ?? {},
    sessionId: run.sessionId ?? null,
    pendingPauses: pending,
    pauses: run.pauseIds,
    createdAt: run.createdAt,
    ...(run.endedAt === undefined ? {} : { endedAt: run.endedAt }),
    ...(run.reason === undefined ? {} : { reason: run.reason }),
  };
}
