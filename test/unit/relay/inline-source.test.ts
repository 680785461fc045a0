// What the frame page can carry inline: the panel's built files are written into it only when the browser will hash
// them as the relay did and nothing of the page can land inside them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_ENTRY, readFramePage } from '../../../src/relay/frame/frame-page.ts';
import { carriesInline, cspHash } from '../../../src/relay/frame/inline-source.ts';

let dist: string | undefined;
afterEach(() => dist && rmSync(dist, { recursive: true, force: true }));

/** A built panel of one script and one stylesheet, as Vite's manifest names them. */
function builtPanel(script: string, style: string): string {
  dist = mkdtempSync(join(tmpdir(), 'pwc-inline-'));
  mkdirSync(join(dist, '.vite'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'assets/frame-a1.js'), script);
  writeFileSync(join(dist, 'assets/frame-a1.css'), style);
  writeFileSync(
    join(dist, '.vite/manifest.json'),
    JSON.stringify({ [FRAME_ENTRY]: { file: 'assets/frame-a1.js', css: ['assets/frame-a1.css'] } }),
  );
  return dist;
}

describe('the panel carried inline', () => {
  it('writes a clean build into the page, with the hashes of exactly what it wrote', async () => {
    const page = await readFramePage(builtPanel('console.log("panel")', 'p{color:red}'));
    expect(page?.html).toContain('<script type="module">console.log("panel")</script>');
    expect(page?.html).toContain('<style>p{color:red}</style>');
    expect(page?.scriptSources).toEqual([cspHash('console.log("panel")')]);
    expect(page?.styleSources).toEqual([cspHash('p{color:red}')]);
  });

  it.each([
    ['a carriage return, which the browser hashes as a line feed', 'a();\r\nb();', 'p{}'],
    ['a NUL, which the browser hashes as U+FFFD', 'a("\0")', 'p{}'],
    ['the configuration slot, which the configuration would be written into', 'a("<!--configuration-->")', 'p{}'],
    ['the language slot in the stylesheet', 'a()', 'p::after{content:"<!--locale-->"}'],
    ['an end tag of its block', 'a("</script>")', 'p{}'],
  ])('serves no page for a build holding %s', async (_what, script, style) => {
    expect(await readFramePage(builtPanel(script, style))).toBeNull();
  });

  it('knows which text a block can hold as it is', () => {
    expect(carriesInline('a();\nb();', 'script')).toBe(true);
    expect(carriesInline('a();\rb();', 'script')).toBe(false);
    expect(carriesInline('p{}\0', 'style')).toBe(false);
    expect(carriesInline('p::after{content:"<!--"}', 'style')).toBe(true);
    expect(carriesInline('a("<!--")', 'script')).toBe(false);
  });
});
