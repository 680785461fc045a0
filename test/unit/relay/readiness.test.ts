// GET /readyz through app.request: the upstream token's state without an upstream call per probe, plugged-in checks
// with a timeout, and "draining" while the instance stops. /healthz stays liveness.
import { describe, expect, it } from 'vitest';
import { createLifecycle } from '../../../src/relay/health/lifecycle.ts';
import type { ReadinessCheck } from '../../../src/relay/health/readiness.ts';
import { createMemoryStores } from '../../../src/relay/shared-state/stores.ts';
import { createRelayHarness, RELAY_ORIGIN } from './relay-harness.ts';

const ok: ReadinessCheck = async () => ({ ready: true, status: 'ok' });
const unreachable: ReadinessCheck = async () => ({ ready: false, status: 'unreachable' });

/** Counts the requests the relay makes upstream (the harness reads simulator.fetch late, so wrapping it works). */
function countUpstream(simulator: ReturnType<typeof createRelayHarness>['simulator']) {
  const paths: string[] = [];
  const real = simulator.fetch.bind(simulator);
  simulator.fetch = (input, init) => {
    paths.push(new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).pathname);
    return real(input, init);
  };
  return paths;
}

describe('GET /readyz', () => {
  it('is ready before any token ("none yet"), answers JSON with no-store, and calls nothing upstream', async () => {
    const relay = createRelayHarness();
    const upstreamPaths = countUpstream(relay.simulator);
    for (let i = 0; i < 3; i++) {
      const response = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
      expect(response.status).toBe(200);
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ status: 'ready', checks: { upstream_token: 'none yet' } });
    }
    expect(upstreamPaths).toEqual([]);
    relay.close();
  });

  it('reports a valid token once a request has fetched one', async () => {
    const relay = createRelayHarness();
    await relay.startConversation();
    const upstreamPaths = countUpstream(relay.simulator);
    const response = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(await response.json()).toEqual({ status: 'ready', checks: { upstream_token: 'valid' } });
    expect(upstreamPaths).toEqual([]);
    relay.close();
  });

  it('is not ready while the token request is failing and backing off, naming since when', async () => {
    const t = Date.parse('2026-11-23T00:40:00.000Z');
    const relay = createRelayHarness({ password: 'wrong password', now: () => t });
    const failed = await relay.fromFrame('/v1/conversations', { body: { client_id: 'demo-client' } });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const upstreamPaths = countUpstream(relay.simulator);
    const response = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(response.status).toBe(503);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(await response.json()).toEqual({
      status: 'not_ready',
      checks: { upstream_token: 'failing since 2026-11-23T00:40:00.000Z' },
    });
    expect(upstreamPaths).toEqual([]);
    relay.close();
  });

  it('includes plugged-in checks: all ok is ready, one unreachable is not', async () => {
    const healthy = createRelayHarness({ app: { readiness: { redis: ok } } });
    const good = await healthy.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ status: 'ready', checks: { upstream_token: 'none yet', redis: 'ok' } });
    healthy.close();

    const sick = createRelayHarness({ app: { readiness: { redis: unreachable, other: ok } } });
    const bad = await sick.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(bad.status).toBe(503);
    expect(await bad.json()).toEqual({ status: 'not_ready', checks: { upstream_token: 'none yet', redis: 'unreachable', other: 'ok' } });
    sick.close();
  });

  it('reports the stores\' own checks (Redis answering a PING) as ok / unreachable', async () => {
    let answers = true;
    const stores = { ...createMemoryStores(), readiness: { redis: async () => answers } };
    const relay = createRelayHarness({ app: { stores } });
    const up = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ status: 'ready', checks: { upstream_token: 'none yet', redis: 'ok' } });
    answers = false;
    const down = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'not_ready', checks: { upstream_token: 'none yet', redis: 'unreachable' } });
    relay.close();
  });

  it('cuts a slow check off after its timeout (aborting it) and hides a failing check\'s message', async () => {
    let aborted = false;
    const hangs: ReadinessCheck = (signal) =>
      new Promise(() => {
        signal.addEventListener('abort', () => (aborted = true));
      });
    const throws: ReadinessCheck = async () => {
      throw new Error('CANARY connection string redis://secret@host');
    };
    const relay = createRelayHarness({ app: { readiness: { redis: hangs, queue: throws }, readinessTimeoutMs: 50 } });
    const response = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ status: 'not_ready', checks: { upstream_token: 'none yet', redis: 'timed out', queue: 'failed' } });
    expect(text).not.toContain('CANARY');
    expect(aborted).toBe(true);
    relay.close();
  });

  it('refuses a plugged-in check that takes the relay\'s own name', () => {
    expect(() => createRelayHarness({ app: { readiness: { upstream_token: ok } } })).toThrow(/upstream_token/);
  });

  it('answers 503 "draining" while the instance stops; /healthz stays 200; answers ask to close the connection', async () => {
    const lifecycle = createLifecycle();
    const relay = createRelayHarness({ app: { lifecycle, readiness: { redis: ok } } });
    const before = await relay.app.request(`${RELAY_ORIGIN}/healthz`);
    expect(before.headers.get('Connection')).toBeNull();
    lifecycle.startDraining();
    const ready = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('Cache-Control')).toBe('no-store');
    expect(await ready.json()).toEqual({ status: 'draining' });
    const health = await relay.app.request(`${RELAY_ORIGIN}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(health.headers.get('Connection')).toBe('close');
    const configuration = await relay.app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=demo-client`);
    expect(configuration.status).toBe(200);
    expect(configuration.headers.get('Connection')).toBe('close');
    relay.close();
  });
});
