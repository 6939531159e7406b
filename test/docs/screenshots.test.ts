import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MANIFEST,
  manifestSchema,
  ROOT,
  SHOWN_BY,
  sha256,
  sourceChanges,
  sourceHashes,
} from '../../scripts/screenshots/freshness.js';
import { SCENES } from '../../scripts/screenshots/scenes.js';

/**
 * The docs' screenshots are what the UI shows now: each was taken by `npm run docs:screenshots`
 * from the sandbox, and none of the sources that decide what it shows has changed since
 * (scripts/screenshots/freshness.ts says how that is decided).
 */

const manifest = manifestSchema.parse(JSON.parse(await readFile(join(ROOT, MANIFEST), 'utf8')));
const pngs = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.png')).sort();
const REGENERATE = 'run `npm run docs:screenshots` and commit docs/';

describe('the screenshots in docs/', () => {
  it('each is taken by a scene of the screenshot script, and each scene has its screenshot', () => {
    expect(pngs).toEqual(SCENES.map((scene) => scene.file).sort());
    expect(Object.keys(manifest.screenshots).sort()).toEqual(pngs);
  });

  it('each is the PNG the script took (its hash is the recorded one)', async () => {
    const replaced: string[] = [];
    for (const png of pngs) {
      if (sha256(await readFile(join(ROOT, 'docs', png))) !== manifest.screenshots[png]) {
        replaced.push(png);
      }
    }
    expect(replaced, `not taken by the script: ${REGENERATE}`).toEqual([]);
  });

  it('none is older than the UI it shows: no source it shows changed since it was taken', async () => {
    const changes = sourceChanges(manifest.sources, await sourceHashes(SHOWN_BY));
    expect(changes, `the screenshots are older than these sources: ${REGENERATE}`).toEqual([]);
  });

  it('each is shown by a document', async () => {
    const documents = ['README.md', ...(await readdir(join(ROOT, 'docs')))]
      .filter((name) => name.endsWith('.md'))
      .map((name) => (name === 'README.md' ? name : join('docs', name)));
    const text = (
      await Promise.all(documents.map((document) => readFile(join(ROOT, document), 'utf8')))
    ).join('\n');
    expect(pngs.filter((png) => !text.includes(png))).toEqual([]);
  });
});
