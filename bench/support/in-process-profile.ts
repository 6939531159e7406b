import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * Runs `work` under V8's CPU profiler in this process and writes the profile to
 * `<dir>/<name>.cpuprofile`; with no `dir`, runs `work` alone. Returns the profile's path, if any.
 */
export async function profiled<T>(
  dir: string | undefined,
  name: string,
  work: () => Promise<T>,
): Promise<{ result: T; file?: string }> {
  if (dir === undefined) return { result: await work() };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    const file = join(dir, `${name}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    return { result, file };
  } finally {
    session.disconnect();
  }
}
