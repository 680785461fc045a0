// GET /readyz through app.request: ready is about this instance (not draining, its event loop keeps up); the
// upstream token and plugged-in dependencies are reported (with a timeout each) but never make it unready.
// /healthz stays liveness.
import { describe, expect, it } from 'vitest';
import { createLifecycle } from '../../../src/relay/health/lifecycle.ts';
import type { DependencyCheck } from '../../../src/relay/health/readiness.ts';
import { createMemoryStores } from '../../../src/relay/stores.ts';
import { createRelayHarness, RELAY_ORIGIN } from './relay-harness.ts';

const ok: DependencyCheck = async () => 'ok';
const unreachable: DependencyCheck = async () => 'unreachable';
/** An event loop that keeps up: 3 ms late at most. */
const responsive = () => 3;
const RESPONSIVE = { event_loop: 'responsive', event_loop_delay_ms: 3 };

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
    const relay = createRelayHarness({ app: { observability: { eventLoopDelayMs: responsive } } });
    const upstreamPaths = countUpstream(relay.simulator);
    for (let i = 0; i < 3; i++) {
      const response = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
      expect(response.status).toBe(200);
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({
        status: 'ready',
        instance: RESPONSIVE,
        dependencies: { upstream_token: 'none yet' },
      });
    }
    expect(upstreamPaths).toEqual([]);
    relay.close();
  });

  it('reports a valid token once a request has fetched one', async () => {
    const relay = createRelayHarness({ app: { observability: { eventLoopDelayMs: responsive } } });
    await relay.startConversation();
    const upstreamPaths = countUpstream(relay.simulator);
    const response = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(await response.json()).toEqual({
      status: 'ready',
      instance: RESPONSIVE,
      dependencies: { upstream_token: 'valid' },
    });
    expect(upstreamPaths).toEqual([]);
    relay.close();
  });

  it('stays ready while the token request is failing, and reports it with since when', async () => {
    const t = Date.parse('2026-11-23T00:40:00.000Z');
    const relay = createRelayHarness({
      password: 'wrong password',
      now: () => t,
      app: { observability: { eventLoopDelayMs: responsive } },
    });
    const failed = await relay.fromFrame('/v1/conversations', { body: { client_id: 'demo-client' } });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const upstreamPaths = countUpstream(relay.simulator);
    const response = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(await response.json()).toEqual({
      status: 'ready',
      instance: RESPONSIVE,
      dependencies: { upstream_token: 'failing since 2026-11-23T00:40:00.000Z' },
    });
    expect(upstreamPaths).toEqual([]);
    relay.close();
  });

  it('reports plugged-in dependencies, and stays ready when one is unreachable', async () => {
    const relay = createRelayHarness({
      app: { observability: { eventLoopDelayMs: responsive, dependencies: { redis: unreachable, other: ok } } },
    });
    const response = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ready',
      instance: RESPONSIVE,
      dependencies: { upstream_token: 'none yet', redis: 'unreachable', other: 'ok' },
    });
    relay.close();
  });

  it("reports the stores' own checks (Redis answering a PING) as ok / unreachable, ready either way", async () => {
    let answers = true;
    const stores = { ...createMemoryStores(), readiness: { redis: async () => answers } };
    const relay = createRelayHarness({ app: { shared: { stores }, observability: { eventLoopDelayMs: responsive } } });
    const up = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({
      status: 'ready',
      instance: RESPONSIVE,
      dependencies: { upstream_token: 'none yet', redis: 'ok' },
    });
    answers = false;
    const down = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(down.status).toBe(200);
    expect(await down.json()).toEqual({
      status: 'ready',
      instance: RESPONSIVE,
      dependencies: { upstream_token: 'none yet', redis: 'unreachable' },
    });
    relay.close();
  });

  it("cuts a slow check off after its timeout (aborting it) and hides a failing check's message", async () => {
    let aborted = false;
    const hangs: DependencyCheck = (signal) =>
      new Promise(() => {
        signal.addEventListener('abort', () => (aborted = true));
      });
    const throws: DependencyCheck = async () => {
      throw new Error('CANARY connection string redis://secret@host');
    };
    const relay = createRelayHarness({
      app: {
        observability: {
          eventLoopDelayMs: responsive,
          dependencies: { redis: hangs, queue: throws },
          dependencyTimeoutMs: 50,
        },
      },
    });
    const response = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      status: 'ready',
      instance: RESPONSIVE,
      dependencies: { upstream_token: 'none yet', redis: 'timed out', queue: 'failed' },
    });
    expect(text).not.toContain('CANARY');
    expect(aborted).toBe(true);
    relay.close();
  });

  it("refuses a plugged-in dependency that takes the relay's own name", () => {
    expect(() => createRelayHarness({ app: { observability: { dependencies: { upstream_token: ok } } } })).toThrow(
      /upstream_token/,
    );
  });

  it('is not ready while the event loop has recently run later than MAX_EVENT_LOOP_DELAY_MS, and ready again after', async () => {
    let delayMs = 1500;
    const relay = createRelayHarness({
      app: { observability: { eventLoopDelayMs: () => delayMs, dependencies: { redis: ok } } },
    });
    expect(relay.settings.maxEventLoopDelayMs).toBe(1000);
    const slow = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(slow.status).toBe(503);
    expect(slow.headers.get('Cache-Control')).toBe('no-store');
    expect(await slow.json()).toEqual({
      status: 'not_ready',
      instance: { event_loop: 'slow', event_loop_delay_ms: 1500 },
      dependencies: { upstream_token: 'none yet', redis: 'ok' },
    });
    delayMs = 1000;
    const atTheLimit = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(atTheLimit.status).toBe(200);
    relay.close();

    const stricter = createRelayHarness({
      environment: { MAX_EVENT_LOOP_DELAY_MS: '200' },
      app: { observability: { eventLoopDelayMs: () => 250 } },
    });
    expect((await stricter.app.request(`${RELAY_ORIGIN}/readyz`)).status).toBe(503);
    stricter.close();
  });

  it('answers 503 "draining" while the instance stops; /healthz stays 200; answers ask to close the connection', async () => {
    const lifecycle = createLifecycle();
    const relay = createRelayHarness({
      app: { lifecycle, observability: { eventLoopDelayMs: responsive, dependencies: { redis: ok } } },
    });
    const before = await relay.app.request(`${RELAY_ORIGIN}/healthz`);
    expect(before.headers.get('Connection')).toBeNull();
    expect((await relay.app.request(`${RELAY_ORIGIN}/readyz`)).status).toBe(200);
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
