// The frame page served with its body changed by the test and its headers (the CSP) as the relay sent them: for tests
// of what the browser does with a page the relay did not write that way.
import type { BrowserContext } from 'playwright-core';

export async function rewriteFramePage(context: BrowserContext, rewrite: (html: string) => string): Promise<void> {
  await context.route(
    (url) => url.pathname === '/frame',
    async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      // The body is handed back decoded.
      delete headers['content-encoding'];
      delete headers['content-length'];
      await route.fulfill({ response, headers, body: rewrite(await response.text()) });
    },
  );
}
