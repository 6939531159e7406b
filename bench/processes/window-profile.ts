import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';
import { profileSchema, tellParent } from './messages.js';

/**
 * Profiles this process between the benchmark's `start` and `stop` (V8's CPU profiler through
 * the inspector), so a profile holds the decisions of one burst and nothing before it.
 */
export function answerProfileRequests(): void {
  const session = new Session();
  session.connect();
  process.on('message', (message: unknown) => {
    const request = profileSchema.safeParse(message);
    if (!request.success) return;
    void handle(session, request.data).then(
      () => tellParent({ kind: 'profiled' }),
      (error: unknown) => {
        process.stderr.write(`profiling failed: ${String(error)}\n`);
      },
    );
  });
}

async function handle(
  session: Session,
  request: { action: 'start' } | { action: 'stop'; file: string },
): Promise<void> {
  if (request.action === 'start') {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    return;
  }
  const { profile } = await session.post('Profiler.stop');
  await mkdir(dirname(request.file), { recursive: true });
  await writeFile(request.file, JSON.stringify(profile));
}
