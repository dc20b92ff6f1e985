// The browser test: Debian's chromium, headless (playwright-core drives it; no browser of its
// own is downloaded), loads test/browser/page.html from the local Range server and reports the
// page's checks and what the server sent for /big.npy.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../server.mjs';

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const server = await startServer();
const profile = mkdtempSync(join(tmpdir(), 'npy-wasm-chromium-'));
let failed = 0;
let passed = 0;
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
    ],
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`page error: ${e}`));
  await page.goto(`${server.url}/test/browser/page.html`);
  const results = await page.waitForFunction(() => window.__results, null, { timeout: 60000 })
    .then((h) => h.jsonValue());
  for (const r of results) {
    console.log(`${r.ok ? 'ok' : 'not ok'} - ${r.name}: ${r.detail}`);
    if (r.ok) passed++; else failed++;
  }
  const big = server.stats.get('/big.npy') ?? { requests: 0, bytes: 0 };
  const ok = big.requests <= 2 && big.bytes <= 128 * 1024;
  console.log(`${ok ? 'ok' : 'not ok'} - /big.npy served ${big.requests} request(s), ${big.bytes} bytes (target <= 2, <= 131072)`);
  if (ok) passed++; else failed++;
} finally {
  if (context) await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
