// The relay sends loader.js and the hashed assets compressed at build time, by Accept-Encoding. The files here are
// made by the real build step (scripts/precompress.mjs) in a temporary dist/, and read back through the relay app.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayApp } from '../../../src/relay/app.ts';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { readSettings } from '../../../src/relay/settings.ts';
import { createUpstreamClient } from '../../../src/relay/upstream/index.ts';
import { createSimulator } from '../../../src/simulator/app.ts';
import { FIXTURE_DIST, RELAY_ORIGIN, UPSTREAM_BASE_URL } from './relay-harness.ts';

let dist: string;
let app: ReturnType<typeof createRelayApp>;
// Long enough that compression pays (the fixture files are tiny); the relay must hand back these exact bytes.
const LOADER = `(function(){${'var practiceChat=1;'.repeat(200)}})();\n`;
const LOADER_MAP = JSON.stringify({ version: 3, sources: ['../src/loader/main.ts'], names: [], mappings: 'AAAA' });

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'relay-dist-'));
  cpSync(FIXTURE_DIST, dist, { recursive: true });
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(dist, 'loader.js'), LOADER);
  writeFileSync(join(dist, 'loader.js.map'), LOADER_MAP);
  writeFileSync(join(dist, 'assets/frame-fixture.js'), `export const panel = [${'"message", '.repeat(300)}];\n`);
  writeFileSync(join(dist, 'assets/frame-fixture.css'), '.panel { color: #0f766e; }\n'.repeat(100));
  execFileSync(process.execPath, ['scripts/precompress.mjs', dist]);
  const simulator = createSimulator();
  app = createRelayApp({
    settings: readSettings({ NODE_ENV: 'test' }, () => new Uint8Array(32).fill(7)),
    upstream: {
      client: createUpstreamClient({
        baseUrl: UPSTREAM_BASE_URL,
        username: 'u',
        password: 'p',
        fetch: (input, init) => simulator.fetch(input, init),
      }),
    },
    files: { distDir: dist, publicDir: dist },
    observability: { logger: createJsonLogger(() => {}) },
  });
});
afterAll(() => rmSync(dist, { recursive: true, force: true }));

const get = (path: string, headers: Record<string, string> = {}) => app.request(`${RELAY_ORIGIN}${path}`, { headers });

async function bodyOf(response: Response): Promise<string> {
  const bytes = Buffer.from(await response.arrayBuffer());
  const encoding = response.headers.get('Content-Encoding');
  if (encoding === 'br') return brotliDecompressSync(bytes).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(bytes).toString('utf8');
  return bytes.toString('utf8');
}

describe.each([
  ['/loader.js', 'text/javascript', 'public, max-age=300'],
  ['/assets/frame-fixture.js', 'text/javascript', 'public, max-age=31536000, immutable'],
  ['/assets/frame-fixture.css', 'text/css', 'public, max-age=31536000, immutable'],
])('%s', (path, type, cacheControl) => {
  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['gzip, deflate', 'gzip'],
    ['identity', null],
    [undefined, null],
  ])('Accept-Encoding %s gets %s, with Vary and its cache rules', async (accept, encoding) => {
    const response = await get(path, accept === undefined ? {} : { 'Accept-Encoding': accept });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Encoding')).toBe(encoding);
    expect(response.headers.get('Vary')).toBe('Accept-Encoding');
    expect(response.headers.get('Content-Type')).toMatch(new RegExp(`^${type}`));
    expect(response.headers.get('Cache-Control')).toBe(cacheControl);
    const plain = await bodyOf(await get(path));
    expect(await bodyOf(response)).toBe(plain);
  });
});

describe('the loader is revalidated by ETag', () => {
  it('answers 304 to a matching If-None-Match, and 200 to another', async () => {
    const first = await get('/loader.js', { 'Accept-Encoding': 'br' });
    const tag = first.headers.get('ETag');
    expect(tag).toMatch(/^"[^"]+"$/);
    const again = await get('/loader.js', { 'Accept-Encoding': 'br', 'If-None-Match': tag! });
    expect(again.status).toBe(304);
    expect(again.headers.get('ETag')).toBe(tag);
    expect(again.headers.get('Vary')).toBe('Accept-Encoding');
    expect(await again.text()).toBe('');
    const stale = await get('/loader.js', { 'Accept-Encoding': 'br', 'If-None-Match': '"not-this-one"' });
    expect(stale.status).toBe(200);
    expect(brotliDecompressSync(Buffer.from(await stale.arrayBuffer())).toString('utf8')).toBe(LOADER);
  });

  it('tags each encoding differently, so a cache never answers 304 for bytes in another encoding', async () => {
    const br = (await get('/loader.js', { 'Accept-Encoding': 'br' })).headers.get('ETag');
    const gzip = (await get('/loader.js', { 'Accept-Encoding': 'gzip' })).headers.get('ETag');
    const plain = (await get('/loader.js')).headers.get('ETag');
    expect(new Set([br, gzip, plain]).size).toBe(3);
    expect((await get('/loader.js', { 'If-None-Match': br! })).status).toBe(200);
  });
});

describe("the loader's source map", () => {
  it('is served beside loader.js, for whoever asks for it by name', async () => {
    const response = await get('/loader.js.map');
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=300');
    expect(await response.text()).toBe(LOADER_MAP);
  });
});
