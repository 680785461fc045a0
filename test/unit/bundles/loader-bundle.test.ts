// Guards the built loader (npm test builds before it runs): its size, that it is a classic script, and that nothing
// from the frame, Preact, the relay or the simulator ended up in it.
import { describe, expect, it } from 'vitest';
import { brotliSize, LOADER_BROTLI_CEILING, readBuilt } from './budgets.ts';

const loader = readBuilt('loader.js');
const source = loader.toString('utf8');

describe('dist/loader.js', () => {
  it(`is at most ${LOADER_BROTLI_CEILING} bytes brotli`, () => {
    const size = brotliSize(loader);
    console.info(`loader.js: ${loader.length} bytes, ${size} bytes brotli (ceiling ${LOADER_BROTLI_CEILING})`);
    expect(size).toBeLessThanOrEqual(LOADER_BROTLI_CEILING);
  });

  it('is a classic script: no import or export statement, no shared chunk', () => {
    expect(source).not.toMatch(/(^|[;}\s])import\s*[\w{*"'`]/);
    expect(source).not.toMatch(/(^|[;}\s])export\s*[\w{*]/);
    expect(source).not.toMatch(/import\(|import\.meta/);
    expect(source.trimStart().startsWith('(function')).toBe(true);
  });

  it.each([
    ['Preact', /__PREACT|preact|createElement\("div"\)|__H|useState/],
    ['signals', /@preact\/signals|_signal|effect\(/],
    ['zod', /ZodError|zod/],
    ['the relay', /hono|createHandleSealer|Idempotency|UPSTREAM_|access_token/],
    ['the simulator', /simulator|demo-password|oauth\/token/],
    ['the frame', /MessagesAfter|typing|Talk to a person|sessionStorage/],
  ])('holds no %s code', (_what, pattern) => {
    expect(source).not.toMatch(pattern);
  });

});
