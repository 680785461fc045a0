// Guards the built chat panel (npm test builds before it runs): its size, and that no server code is in it.
import { describe, expect, it } from 'vitest';
import { brotliSize, FRAME_BROTLI_CEILING, frameAssets, readBuilt } from './budgets.ts';

const files = frameAssets().map((path) => ({ path, bytes: readBuilt(path) }));
const script = files
  .filter((file) => file.path.endsWith('.js'))
  .map((file) => file.bytes.toString('utf8'))
  .join('\n');

describe('the chat panel bundle', () => {
  it(`is at most ${FRAME_BROTLI_CEILING} bytes brotli, JavaScript and CSS together`, () => {
    const size = files.reduce((total, file) => total + brotliSize(file.bytes), 0);
    console.info(
      `frame: ${files.map((file) => `${file.path} ${file.bytes.length} B`).join(', ')}; ${size} bytes brotli (ceiling ${FRAME_BROTLI_CEILING})`,
    );
    expect(files.some((file) => file.path.endsWith('.css'))).toBe(true);
    expect(size).toBeLessThanOrEqual(FRAME_BROTLI_CEILING);
  });

  it.each([
    ['the relay', /hono|createHandleSealer|aes-256-gcm|UPSTREAM_|REQUEST_DEADLINE/],
    ['the upstream client or credentials', /oauth\/token|access_token|refresh_token|grant_type/],
    ['the simulator', /demo-password|simulator|Maria from the front desk/],
    ['node built-ins', /node:crypto|node:fs|require\("/],
  ])('holds no %s code', (_what, pattern) => {
    expect(script).not.toMatch(pattern);
  });

  // The panel sends its conversation handle as `Authorization: Bearer HANDLE`: that one Bearer, and no other (the
  // upstream token's stays in the relay).
  it("says Bearer exactly once: the conversation handle's Authorization header", () => {
    expect(script.match(/Bearer /g) ?? []).toHaveLength(1);
    expect(script).toMatch(/Authorization:`Bearer \$\{\w+\}`/);
  });

  // Message text staying out of sessionStorage is shown by the handle store's tests and the reload browser test.
  it('uses no persistent browser storage at all: no localStorage, IndexedDB or cookies', () => {
    expect(script.match(/localStorage/g) ?? []).toEqual([]);
    expect(script).not.toMatch(/indexedDB|document\.cookie/);
  });
});
