// The frame page on the wire, brotli-compressed when the browser accepts it. The page differs only by configuration and
// language, so each distinct page is compressed once and kept (a few hundred at most), under its digest rather than
// its text. The page carries the panel's script, so quality 11 (the built assets') takes long enough that no visitor
// should wait for it: the first request for a page gets a quick compression, made off the event loop, and the
// smaller one replaces it in the background, one page at a time, for every visitor after.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';

const brotli = promisify(brotliCompress);
const QUICK_QUALITY = 5;
const BEST_QUALITY = 11;

/** How a page is compressed: brotli at a quality (a seam for tests, which count the work). */
export type Compress = (html: string, quality: number) => Promise<Buffer>;

const compressWithBrotli: Compress = (html, quality) =>
  brotli(html, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(html),
    },
  });

interface Kept {
  body: Buffer | Promise<Buffer>;
  /** Whether body is the quality-11 copy. */
  best: boolean;
}

export function createPageCompressor(maxEntries = 256, compress: Compress = compressWithBrotli) {
  const cache = new Map<string, Kept>();
  // One quality-11 compression at a time: it runs on the thread pool that file reads and DNS look-ups share, and a
  // stream of new pages (many practices times many languages) must not queue one each. A page passed over now is
  // upgraded on a later request for it.
  let upgrading = false;
  const keep = (key: string, kept: Kept) => {
    cache.delete(key);
    cache.set(key, kept);
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  };
  const upgrade = (key: string, html: string) => {
    const kept = cache.get(key);
    if (upgrading || kept === undefined || kept.best || !(kept.body instanceof Buffer)) return;
    upgrading = true;
    compress(html, BEST_QUALITY)
      .then(
        (best) => {
          // Only while this page is still kept: a dropped page is not brought back, nor moved up the order.
          if (cache.has(key)) cache.set(key, { body: best, best: true });
        },
        // A failed upgrade leaves the quick copy, which is still right.
        () => {},
      )
      .finally(() => {
        upgrading = false;
      });
  };
  return function compressedPage(html: string): Promise<Buffer> {
    const key = createHash('sha256').update(html, 'utf8').digest('base64');
    const hit = cache.get(key);
    // Most recently used last, so the oldest is the one dropped.
    if (hit) {
      keep(key, hit);
      upgrade(key, html);
      return Promise.resolve(hit.body);
    }
    const quick = compress(html, QUICK_QUALITY);
    keep(key, { body: quick, best: false });
    quick.then(
      (body) => {
        if (cache.get(key)?.body !== quick) return;
        cache.set(key, { body, best: false });
        upgrade(key, html);
      },
      // A failed compression is not kept: the next request tries again.
      () => {
        if (cache.get(key)?.body === quick) cache.delete(key);
      },
    );
    return quick;
  };
}

/** Whether Accept-Encoding allows br (a q of 0 refuses it). */
export function acceptsBrotli(header: string | undefined): boolean {
  return (header ?? '').split(',').some((entry) => {
    const [coding = '', ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    return coding === 'br' && !parameters.some((parameter) => /^q=0(?:\.0{0,3})?$/.test(parameter));
  });
}
