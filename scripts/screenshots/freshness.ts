import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * When is a screenshot in docs/ older than the UI it shows? Each is taken by
 * `npm run docs:screenshots`, which records in docs/screenshots.json the SHA-256 of each PNG
 * and of every source file that decides what they show: the app's Slack code (src/slack/:
 * renderers, codecs, transport), the sandbox page that draws them, the demo agents and policy
 * whose words are on it, and the scene that drives the page. A screenshot is stale as soon as one of those
 * files differs from what was recorded, or is added or removed; the docs test
 * (test/docs/screenshots.test.ts) says which. Source hashes, not pixels: a rendering changes with
 * the clock (times on the cards), the sources do not.
 */

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MANIFEST = 'docs/screenshots.json';

/** What every screenshot shows: a folder (ending in `/`) stands for every file under it. */
export const SHOWN_BY = [
  'src/slack/',
  'packages/slack-sandbox/src/page/',
  'packages/demo/src/',
  'scripts/screenshots/scenes.ts',
] as const;

export const manifestSchema = z.object({
  about: z.string(),
  /** Each source file the screenshots show (`SHOWN_BY`) and its SHA-256, when they were taken. */
  sources: z.record(z.string(), z.string()),
  /** Each screenshot, by its file name in docs/, and the SHA-256 of the PNG. */
  screenshots: z.record(z.string(), z.string()),
});
export type ScreenshotManifest = z.infer<typeof manifestSchema>;

export const ABOUT =
  'Written by `npm run docs:screenshots` (scripts/screenshots/), checked by test/docs/screenshots.test.ts: the SHA-256 of each screenshot, and of each source file it shows when it was taken.';

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The files `shownBy` names, relative to the repository, each with its SHA-256. */
export async function sourceHashes(shownBy: readonly string[]): Promise<Record<string, string>> {
  const files: string[] = [];
  for (const entry of shownBy) {
    if (!entry.endsWith('/')) {
      files.push(entry);
      continue;
    }
    const found = await readdir(join(ROOT, entry), { recursive: true, withFileTypes: true });
    files.push(
      ...found
        .filter((file) => file.isFile() && !file.name.startsWith('.'))
        .map((file) => relative(ROOT, join(file.parentPath, file.name)).split(sep).join('/')),
    );
  }
  const hashes: Record<string, string> = {};
  for (const file of [...new Set(files)].sort()) {
    hashes[file] = sha256(await readFile(join(ROOT, file)));
  }
  return hashes;
}

/** What changed in `now` since `recorded`: "<file> changed|added|removed". */
export function sourceChanges(
  recorded: Record<string, string>,
  now: Record<string, string>,
): string[] {
  const files = [...new Set([...Object.keys(recorded), ...Object.keys(now)])].sort();
  return files.flatMap((file) => {
    if (recorded[file] === now[file]) return [];
    if (recorded[file] === undefined) return [`${file} added`];
    if (now[file] === undefined) return [`${file} removed`];
    return [`${file} changed`];
  });
}
