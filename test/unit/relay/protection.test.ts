import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRelayHarness, FIXTURE_DIST, RELAY_ORIGIN } from './relay-harness.ts';
import { MESSAGES } from '../../support/conversation-calls.ts';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

describe('quotas', () => {
  it('limits requests per IP, with Retry-After', async () => {
    harness = createRelayHarness({ environment: { REQUESTS_PER_MINUTE_PER_IP: '3' } });
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await harness.app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=demo-client`)).status,
      );
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await harness.app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=demo-client`);
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect((await limited.json()).error.code).toBe('rate_limited');
  });

  it('counts each address separately behind a trusted proxy', async () => {
    harness = createRelayHarness({ environment: { REQUESTS_PER_MINUTE_PER_IP: '1', TRUST_PROXY: '1' } });
    const from = (address: string) =>
      harness.app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=demo-client`, {
        headers: { 'X-Forwarded-For': `6.6.6.6, ${address}` },
      });
    expect((await from('192.0.2.1')).status).toBe(200);
    expect((await from('192.0.2.2')).status).toBe(200);
    expect((await from('192.0.2.1')).status).toBe(429);
  });

  it('limits new conversations per IP', async () => {
    harness = createRelayHarness({ environment: { CONVERSATIONS_PER_HOUR_PER_IP: '2' } });
    await harness.startConversation();
    await harness.startConversation();
    const third = await harness.fromFrame('/v1/conversations', { body: { client_id: 'demo-client' } });
    expect(third.status).toBe(429);
    expect((await third.json()).error.code).toBe('rate_limited');
    expect(harness.simulator.counters.conversationsCreated).toBe(2);
  });

  it('limits messages per conversation', async () => {
    harness = createRelayHarness({ environment: { MESSAGES_PER_MINUTE_PER_CONVERSATION: '2' } });
    const handle = await harness.startConversation();
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const response = await harness.fromPanel(handle, MESSAGES, {
        body: { text: `message ${i}` },
        headers: { 'Idempotency-Key': `key-000000${i}` },
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([201, 201, 429]);
  });

  it('refuses a body over the size limit', async () => {
    harness = createRelayHarness({ environment: { BODY_LIMIT_BYTES: '1024' } });
    const response = await harness.fromFrame('/v1/conversations', {
      body: { client_id: 'demo-client', padding: 'x'.repeat(2000) },
    });
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('payload_too_large');
  });
});

describe('routes outside /v1', () => {
  it('answers /healthz without calling upstream', async () => {
    harness = createRelayHarness();
    const response = await harness.app.request(`${RELAY_ORIGIN}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(harness.simulator.counters.apiRequests).toBe(0);
  });

  it('serves the loader with a short cache', async () => {
    harness = createRelayHarness();
    const response = await harness.app.request(`${RELAY_ORIGIN}/loader.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toMatch(/^text\/javascript/);
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=300');
  });

  it('serves hashed assets for a year, immutable', async () => {
    harness = createRelayHarness();
    const response = await harness.app.request(`${RELAY_ORIGIN}/assets/frame-fixture.css`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toMatch(/^text\/css/);
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
  });

  // ..%2floader.js names a file that exists just outside assets/: only the path check keeps it out.
  // (Plain ../ is resolved by the URL parser before routing, so it never reaches this route.)
  it.each([
    '/assets/..%2floader.js',
    '/assets/..%2f.vite%2fmanifest.json',
    '/assets/..%5cloader.js',
    '/assets/missing.js',
  ])('does not serve %s', async (path) => {
    harness = createRelayHarness();
    expect((await harness.app.request(`${RELAY_ORIGIN}${path}`)).status).toBe(404);
  });

  it('answers unknown API paths with a coded not_found, and no-store', async () => {
    harness = createRelayHarness();
    const response = await harness.app.request(`${RELAY_ORIGIN}/v1/nothing-here`);
    expect(response.status).toBe(404);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect((await response.json()).error.code).toBe('not_found');
  });
});

describe('GET /frame', () => {
  const policyOf = async (clientId: string) => {
    const response = await harness.app.request(`${RELAY_ORIGIN}/frame?client_id=${clientId}`);
    return { response, policy: response.headers.get('Content-Security-Policy') ?? '' };
  };
  const directive = (policy: string, name: string) =>
    policy
      .split(';')
      .map((part) => part.trim())
      .find((part) => part.startsWith(`${name} `)) ?? '';

  it("lists exactly the configuration's domains in frame-ancestors, for both schemes and any port", async () => {
    harness = createRelayHarness();
    const { response, policy } = await policyOf('smile-dental');
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).not.toMatch(/ style=/);
    expect(directive(policy, 'frame-ancestors').split(' ').slice(1).sort()).toEqual(
      [
        'https://www.smile-dental.test:*',
        'http://www.smile-dental.test:*',
        'https://*.smile-dental.test:*',
        'http://*.smile-dental.test:*',
        'https://localhost:*',
        'http://localhost:*',
        'https://127.0.0.1:*',
        'http://127.0.0.1:*',
      ].sort(),
    );
  });

  // The panel's script and stylesheet travel inside the page (src/relay/frame/inline-source.ts): its policy allows
  // exactly those blocks by their hashes, no file, no other inline block, no eval.
  it("keeps the frame's own code strict: only its own inline blocks, by hash, no eval, nothing from elsewhere", async () => {
    harness = createRelayHarness();
    const { response, policy } = await policyOf('demo-client');
    const page = await response.text();
    const blocks = (pattern: RegExp) => [...page.matchAll(pattern)].map((match) => match[1]!);
    const scripts = blocks(/<script type="module">([\s\S]*?)<\/script>/g);
    const styles = blocks(/<style>([\s\S]*?)<\/style>/g);
    expect(scripts).toEqual([readFileSync(join(FIXTURE_DIST, 'assets/frame-fixture.js'), 'utf8')]);
    expect(styles).toEqual([readFileSync(join(FIXTURE_DIST, 'assets/frame-fixture.css'), 'utf8')]);
    // Every other script element is a JSON data block, which never runs.
    expect(page.match(/<script/g)).toHaveLength(scripts.length + 2);
    expect(page).not.toMatch(/<link|\ssrc=/);
    const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    expect(directive(policy, 'default-src')).toBe("default-src 'none'");
    expect(directive(policy, 'script-src')).toBe(`script-src ${scripts.map(sha256).join(' ')}`);
    expect(directive(policy, 'style-src')).toBe(`style-src ${styles.map(sha256).join(' ')}`);
    expect(directive(policy, 'connect-src')).toBe("connect-src 'self'");
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes/);
  });

  it('allows the analytics beacon only for a configuration with a GA4 tag', async () => {
    harness = createRelayHarness();
    expect(directive((await policyOf('demo-analytics')).policy, 'connect-src')).toBe(
      "connect-src 'self' https://www.google-analytics.com",
    );
    expect(directive((await policyOf('demo-client')).policy, 'connect-src')).toBe("connect-src 'self'");
  });

  it("lets no page embed an inactive configuration's frame", async () => {
    harness = createRelayHarness();
    const { policy } = await policyOf('demo-inactive');
    expect(directive(policy, 'frame-ancestors')).toBe("frame-ancestors 'none'");
  });

  it("lets only the relay's own pages embed a preview frame", async () => {
    harness = createRelayHarness();
    const { policy } = await policyOf('smile-dental&preview=1');
    expect(directive(policy, 'frame-ancestors')).toBe("frame-ancestors 'self'");
  });

  it('answers not_found for an unknown configuration', async () => {
    harness = createRelayHarness();
    const { response } = await policyOf('nobody');
    expect(response.status).toBe(404);
  });
});

describe('the demo page', () => {
  it('is served at /demo/, and /demo redirects there', async () => {
    harness = createRelayHarness();
    const page = await harness.app.request(`${RELAY_ORIGIN}/demo/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Demo fixture');
    const redirect = await harness.app.request(`${RELAY_ORIGIN}/demo`);
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('Location')).toBe('/demo/');
  });
});
