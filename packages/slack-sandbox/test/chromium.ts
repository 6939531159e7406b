import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium, headless. This machine's network is closed: without the background
 * networking flags Chromium keeps trying to reach Google's hosts; `--no-sandbox` because tests
 * may run as root.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-gpu',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
