import { afterEach, describe, expect, it } from 'vitest';
import { createRelayApp } from '../../../src/relay/app.ts';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { readSettings } from '../../../src/relay/settings.ts';
import type { UpstreamClient } from '../../../src/relay/upstream/index.ts';
import { createRelayHarness, FIXTURE_DIST, PUBLIC_DIR, RELAY_ORIGIN } from './relay-harness.ts';

let harness: ReturnType<typeof createRelayHarness> | undefined;
afterEach(() => harness?.close());

describe("the relay's own pages", () => {
  it('has an index that links to the demo, the try page and health', async () => {
    harness = createRelayHarness();
    const page = await (await harness.app.request(`${RELAY_ORIGIN}/`)).text();
    for (const link of ['href="/demo/"', 'href="/try"', 'href="/healthz"']) expect(page).toContain(link);
  });

  it('serves /try as a host page with the loader tag under a strict CSP', async () => {
    harness = createRelayHarness();
    const response = await harness.app.request(`${RELAY_ORIGIN}/try?client_id=smile-dental`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<script async src="/loader.js" data-client-id="smile-dental"></script>');
    const policy = response.headers.get('Content-Security-Policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('refuses a malformed client id on /try instead of writing it into the page', async () => {
    harness = createRelayHarness();
    const response = await harness.app.request(`${RELAY_ORIGIN}/try?client_id=%22%3E%3Cscript%3E`);
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain('<script>');
  });

  it('lets no other site frame the try page, the demo page or the index', async () => {
    harness = createRelayHarness();
    for (const path of ['/try', '/demo/']) {
      expect((await harness.app.request(`${RELAY_ORIGIN}${path}`)).headers.get('Content-Security-Policy')).toContain(
        "frame-ancestors 'self'",
      );
    }
    const index = await harness.app.request(`${RELAY_ORIGIN}/`);
    expect(index.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'");
    expect(index.headers.get('Cache-Control')).toBe('no-store');
  });

  it('counts frame pages against the per-address quota, since each may ask upstream for a configuration', async () => {
    harness = createRelayHarness({ environment: { REQUESTS_PER_MINUTE_PER_IP: '2' } });
    const statuses = [];
    for (const id of ['made-up-1', 'made-up-2', 'made-up-3'])
      statuses.push((await harness.app.request(`${RELAY_ORIGIN}/frame?client_id=${id}`)).status);
    expect(statuses).toEqual([404, 404, 429]);
  });

  it('answers /favicon.ico with no content', async () => {
    harness = createRelayHarness();
    expect((await harness.app.request(`${RELAY_ORIGIN}/favicon.ico`)).status).toBe(204);
  });
});

describe('an unexpected failure', () => {
  it("answers 500 internal with a fixed message, and logs only the error's class name", async () => {
    const logLines: string[] = [];
    const broken = {
      getWebchatConfiguration: async () => {
        throw new RangeError('CANARY-SECRET detail that must not leak');
      },
    } as unknown as UpstreamClient;
    const app = createRelayApp({
      settings: readSettings({ NODE_ENV: 'test' }, () => new Uint8Array(32)),
      upstream: { client: broken },
      files: { distDir: FIXTURE_DIST, publicDir: PUBLIC_DIR },
      observability: { logger: createJsonLogger((line) => logLines.push(line)) },
    });
    const response = await app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=demo-client`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: 'internal', message: 'Something went wrong.' } });
    expect(logLines.join('\n')).toContain('RangeError');
    expect(logLines.join('\n')).not.toContain('CANARY-SECRET');
  });
});
