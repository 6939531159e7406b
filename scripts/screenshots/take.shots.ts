import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { launchChromium } from '../../packages/slack-sandbox/test/chromium.js';
import { loadConfig } from '../../src/config.js';
import { type RunningStack, startStack } from '../../src/dev/local-stack.js';
import { createLog } from '../../src/log.js';
import { SandboxPage } from '../../test/support/sandbox-page.js';
import {
  ABOUT,
  MANIFEST,
  ROOT,
  type ScreenshotManifest,
  SHOWN_BY,
  sha256,
  sourceHashes,
} from './freshness.js';
import { SCENES } from './scenes.js';

/**
 * Plays every scene on the local stack as `npm start` runs it with nothing configured, writes
 * each PNG into docs/, then docs/screenshots.json: the PNGs' hashes and those of the sources
 * they show, which the docs test compares with the sources as they are.
 */

let stack: RunningStack;
let browser: Browser;
const logs: string[] = [];

beforeAll(async () => {
  const config = loadConfig({ PORT: '0', SANDBOX_PORT: '0' });
  stack = await startStack(
    config,
    createLog('info', 'app', (line) => logs.push(line)),
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

it('takes every screenshot in docs/ and records what they show', async () => {
  const sandboxUrl = stack.sandboxUrl;
  if (sandboxUrl === undefined) throw new Error('the stack runs without the sandbox');
  const screenshots: ScreenshotManifest['screenshots'] = {};
  for (const scene of SCENES) {
    // A clear workspace per scene: its channel shows its own run only.
    await fetch(`${sandboxUrl}/sandbox/reset`, { method: 'POST', body: '{}' });
    const opened: SandboxPage[] = [];
    try {
      const ui = await scene.play(async (person, conversation) => {
        const page = await SandboxPage.open(browser, sandboxUrl, person, conversation);
        opened.push(page);
        return page;
      });
      const file = join(ROOT, 'docs', scene.file);
      await ui.page.screenshot({ path: file });
      screenshots[scene.file] = sha256(await readFile(file));
      process.stdout.write(`docs/${scene.file}: ${scene.shows}\n`);
    } catch (error) {
      process.stderr.write(`${logs.slice(-30).join('\n')}\n`);
      throw new Error(`scene ${scene.file} failed`, { cause: error });
    } finally {
      for (const page of opened) await page.page.close();
    }
  }
  const manifest: ScreenshotManifest = {
    about: ABOUT,
    sources: await sourceHashes(SHOWN_BY),
    screenshots,
  };
  await writeFile(join(ROOT, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(`${MANIFEST}: ${Object.keys(screenshots).length} screenshots recorded\n`);
});
