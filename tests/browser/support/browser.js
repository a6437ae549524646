// Debian's chromium (never a downloaded browser) driven by playwright-core,
// with a fresh profile per launch. Screenshots go to SCREENSHOT_DIR (set by
// CTest to the build tree), else to a temp directory.
import assert from 'node:assert/strict';
import {chromium} from 'playwright-core';
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

const EXECUTABLE = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const screenshotDir = process.env.SCREENSHOT_DIR || join(tmpdir(), 'redrive-browser-screenshots');
mkdirSync(screenshotDir, {recursive: true});

export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'redrive-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: EXECUTABLE,
    headless: true,
    viewport: {width: 1280, height: 860},
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? await context.newPage();
  // Any console error (a CSP violation, an exception) fails the test that
  // checks `errors`.
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  return {
    page,
    errors,
    newPage: async () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, {recursive: true, force: true});
    },
  };
}

export async function screenshot(page, name) {
  await page.screenshot({path: join(screenshotDir, `${name}.png`), fullPage: true});
}

// Waits for a notice (the console's confirmation of an action) containing `text`.
export const notice = (page, text) => page.locator('.message.notice', {hasText: text}).waitFor();

// Nothing rendered as a stray "null"/"undefined"/"NaN" (a missing value appended raw).
export async function assertNoStrayValues(page) {
  assert.doesNotMatch(await page.locator('main').innerText(), /\b(null|undefined|NaN)\b/);
}
