// The frame page's compression cache: quick first, the smaller copy in the background, one at a time.
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type Compress, createPageCompressor } from '../../../src/relay/frame/compressed-page.ts';

/** A compression that answers when the test says, and records what was asked. */
function heldCompression() {
  const calls: { html: string; quality: number; finish: (ok?: boolean) => void }[] = [];
  let running = 0;
  let mostRunningAtBest = 0;
  const compress: Compress = (html, quality) =>
    new Promise<Buffer>((resolve, reject) => {
      if (quality === 11) mostRunningAtBest = Math.max(mostRunningAtBest, ++running);
      calls.push({
        html,
        quality,
        finish: (ok = true) => {
          if (quality === 11) running--;
          if (ok) resolve(Buffer.from(`${quality}:${html}`));
          else reject(new Error('compression failed'));
        },
      });
    });
  return { compress, calls, mostRunningAtBest: () => mostRunningAtBest };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the frame page compressor', () => {
  it('sends what brotli gives back, the page itself once decompressed', async () => {
    const compressedPage = createPageCompressor();
    const html = `<!doctype html><p>${'the panel '.repeat(500)}</p>`;
    expect(brotliDecompressSync(await compressedPage(html)).toString('utf8')).toBe(html);
  });

  it('runs one quality-11 compression at a time however many new pages arrive, and upgrades the rest later', async () => {
    const held = heldCompression();
    const compressedPage = createPageCompressor(256, held.compress);
    const pages = Array.from({ length: 20 }, (_, index) => `<p>page ${index}</p>`);
    const quick = pages.map((page) => compressedPage(page));
    for (const call of held.calls) call.finish();
    expect((await Promise.all(quick)).map(String)).toEqual(pages.map((page) => `5:${page}`));
    await settle();
    expect(held.calls.filter((call) => call.quality === 11)).toHaveLength(1);

    // While one upgrade runs, a request for another page starts none.
    await compressedPage(pages[5]!);
    expect(held.calls.filter((call) => call.quality === 11)).toHaveLength(1);

    // Once it is done, a later request for a page passed over upgrades it, and the one after gets the smaller copy.
    held.calls.find((call) => call.quality === 11)!.finish();
    await settle();
    expect(String(await compressedPage(pages[0]!))).toBe(`11:${pages[0]}`);
    expect(String(await compressedPage(pages[5]!))).toBe(`5:${pages[5]}`);
    const second = held.calls.filter((call) => call.quality === 11)[1]!;
    expect(second.html).toBe(pages[5]);
    second.finish();
    await settle();
    expect(String(await compressedPage(pages[5]!))).toBe(`11:${pages[5]}`);
    expect(held.mostRunningAtBest()).toBe(1);
  });

  it('keeps the quick copy when the upgrade fails, and compresses nothing again for it', async () => {
    const held = heldCompression();
    const compressedPage = createPageCompressor(256, held.compress);
    const first = compressedPage('<p>one</p>');
    held.calls[0]!.finish();
    expect(String(await first)).toBe('5:<p>one</p>');
    await settle();
    held.calls[1]!.finish(false);
    await settle();
    expect(String(await compressedPage('<p>one</p>'))).toBe('5:<p>one</p>');
    expect(held.calls.filter((call) => call.quality === 5)).toHaveLength(1);
  });

  it('forgets a quick compression that failed, so the next request tries again', async () => {
    const held = heldCompression();
    const compressedPage = createPageCompressor(256, held.compress);
    const first = compressedPage('<p>one</p>');
    held.calls[0]!.finish(false);
    await expect(first).rejects.toThrow('compression failed');
    const again = compressedPage('<p>one</p>');
    held.calls[1]!.finish();
    expect(String(await again)).toBe('5:<p>one</p>');
  });
});
