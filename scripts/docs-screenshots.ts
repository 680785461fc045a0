// Regenerates the docs' screenshots under docs/ from the built widget (run `npm run build` first):
//   npx tsx scripts/docs-screenshots.ts
// Real Chromium, the real relay and the simulator on free ports; nothing is sent anywhere else.
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { startProduct } from '../test/support/product.ts';

const docs = (name: string) => fileURLToPath(new URL(`../docs/${name}`, import.meta.url));
const product = await startProduct();
const browser = await chromium.launch({
  executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  for (const [width, height, name] of [
    [1280, 800, 'demo-desktop.png'],
    [390, 844, 'demo-phone.png'],
  ] as const) {
    const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${product.relayUrl}/demo/`);
    await page.frameLocator('iframe.preview-frame').locator('.suggestions').waitFor();
    await page.waitForTimeout(600); // the greeting's short fade-in
    await page.screenshot({ path: docs(name) });
    await context.close();
  }
  // The panel as a patient first sees it: greeting and suggestions.
  const context = await browser.newContext({ viewport: { width: 400, height: 640 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await page.goto(`${product.relayUrl}/frame?client_id=smile-dental`);
  await page.locator('.suggestions').waitFor();
  await page.waitForTimeout(600);
  await page.screenshot({ path: docs('panel-greeting.png') });
  await context.close();
} finally {
  await browser.close();
  await product.close();
}
