// The frame page loaded on its own, in one tab a test file keeps for all its loads. A tab of its own per load would
// start a renderer process each time: most of a load's cost, and none of what such a test looks at.
import type { Page } from 'playwright-core';
import type { LocaleTag } from '../../src/shared/locales/locale-list.ts';

/**
 * Loads the frame page afresh in `page` at this size and language, and waits for its composer and greeting. The
 * viewport is set before the load, as the loader sizes its frame before the panel renders (the panel reads its height
 * as it renders). The last load's sessionStorage (where the panel keeps a handle and a picked language) is emptied
 * first, so no load resumes another's conversation or language.
 */
export async function loadFramePage(
  page: Page,
  relayUrl: string,
  tag: LocaleTag,
  viewport: { width: number; height: number },
): Promise<void> {
  if (page.url().startsWith(relayUrl)) await page.evaluate(() => sessionStorage.clear());
  await page.setViewportSize(viewport);
  await page.goto(
    `${relayUrl}/frame?${new URLSearchParams({ client_id: 'smile-dental', origin: 'http://www.smile-dental.test', locale: tag })}`,
  );
  await page.locator('textarea').waitFor();
  await page.locator('.greeting').waitFor();
}
