// Debian's Chromium driven by playwright-core (no browser download on these machines: docs/console.md "Development"). The
// flags keep Chromium's own background traffic off this closed network. chromium.launch() gives
// every run a fresh profile in a temporary --user-data-dir of its own (and deletes it on close).
import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('no chromium on the PATH: apt-get install -y chromium (as root; .ci/run does it), or set CHROMIUM_PATH');
  }
}

export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_FLAGS });
  return { browser, close: () => browser.close() };
}
