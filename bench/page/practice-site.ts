// The practice's site for bench:page: a home page with and without the widget's tag, its images and its font.
import { randomBytes } from 'node:crypto';
import { serveHostPages } from '../../tools/host-pages.ts';

/** A practice's home page: headings and text, four images, a ~20 KB font, a little CSS. */
export function practicePage(widget: string): string {
  const paragraph =
    '<p>Our friendly team offers check-ups, hygiene visits, fillings, crowns, implants and emergency appointments. ' +
    'New patients are welcome; we accept most insurance plans and offer evening hours on Tuesdays and Thursdays.</p>';
  const images = [1, 2, 3, 4]
    .map((n) => `<img src="/img/${n}.svg" width="320" height="200" alt="Practice photo ${n}">`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Smile Dental — family dentistry</title>
<style>@font-face{font-family:Brand;src:url(/font/brand.woff2) format("woff2");font-display:swap}
body{font:16px/1.5 Brand,system-ui,sans-serif;margin:0;color:#1f2937}header{background:#0f766e;color:#fff;padding:24px}
main{max-width:960px;margin:auto;padding:24px}.gallery{display:grid;grid-template-columns:repeat(2,1fr);gap:12px}</style></head>
<body><header><h1>Smile Dental</h1><nav><a href="#services">Services</a> · <a href="#team">Team</a> · <a href="#contact">Contact</a></nav></header>
<main><h2 id="services">Services</h2>${paragraph.repeat(6)}<div class="gallery">${images}</div>
<h2 id="team">Our team</h2>${paragraph.repeat(4)}<h2 id="contact">Contact</h2><p>12 High Street · 555-0100</p></main>${widget}</body></html>`;
}

function svgImage(n: number): string {
  const shapes = Array.from(
    { length: 60 },
    (_, i) =>
      `<circle cx="${(i * 37 * n) % 320}" cy="${(i * 53) % 200}" r="${4 + (i % 9)}" fill="hsl(${(i * 17 * n) % 360} 60% 55%)"/>`,
  ).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200"><rect width="320" height="200" fill="#e5f3f1"/>${shapes}</svg>`;
}

/** Serves the site on loopback; `/` carries the widget's tag for `loaderUrl`, `/plain` does not, and `/baseline`
 * carries it for `baselineLoaderUrl` (another build's relay), when given. */
export async function servePracticeSite(
  loaderUrl: string,
  baselineLoaderUrl?: string,
): Promise<{ url(path: string): string; close(): Promise<void> }> {
  // Random base64 text: as incompressible as a real woff2, and plain ASCII so the page server sends it byte for byte.
  const fontBytes = randomBytes(15 * 1024).toString('base64');
  const host = await serveHostPages({
    '/': () => ({ body: practicePage(`<script async src="${loaderUrl}" data-client-id="smile-dental"></script>`) }),
    '/plain': () => ({ body: practicePage('') }),
    ...(baselineLoaderUrl && {
      '/baseline': () => ({
        body: practicePage(`<script async src="${baselineLoaderUrl}" data-client-id="smile-dental"></script>`),
      }),
    }),
    ...Object.fromEntries(
      [1, 2, 3, 4].map((n) => [
        `/img/${n}.svg`,
        () => ({ body: svgImage(n), headers: { 'Content-Type': 'image/svg+xml' } }),
      ]),
    ),
    '/font/brand.woff2': () => ({ body: fontBytes, headers: { 'Content-Type': 'font/woff2' } }),
  });
  return { url: (path) => `http://www.smile-dental.test:${host.port}${path}`, close: () => host.close() };
}
