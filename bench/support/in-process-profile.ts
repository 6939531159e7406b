import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * Runs `work` under V8's CPU profiler in this process and writes the profile to
 * `<dir>/<name>.cpuprofile`, returning its path; with no `dir`, runs `work` alone.
 */
export async function profiled(
  dir: string | undefined,
  name: string,
  work: () => Promise<unknown>,
): Promise<string | undefined> {
  if (dir === undefined) {
    await work();
    return undefined;
  }
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    await work();
    const { profile } = await session.post('Profiler.stop');
    const file = join(dir, `${name}.cpuprofile`);
    await mkdir(dir, { recursive: true });
    await writeFile(file, JSON.stringify(profile));
    return file;
  } finally {
    session.disconnect();
  }
}
