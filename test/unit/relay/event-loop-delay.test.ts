// The event-loop delay sampler against real stalls of this process's loop (each a bounded 400 ms busy-wait), and
// /readyz with the real sampler: a stalled loop makes the instance not ready.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createEventLoopDelaySampler } from '../../../src/relay/health/event-loop-delay.ts';
import { createRelayHarness, RELAY_ORIGIN } from './relay-harness.ts';

/**
 * Holds the event loop for `ms`, as synchronous work would; then lets the sampler's timer see how late it ran. It
 * first lets the sampler's timer tick once: the first tick after sampling starts only sets its baseline.
 */
async function stallEventLoop(ms: number): Promise<void> {
  await sleep(60);
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: no timer can run meanwhile
  }
  await sleep(60);
}

describe('the event-loop delay sampler', () => {
  it('starts at the first read (reporting 0) and then sees a stall of the loop', async () => {
    const recentDelayMs = createEventLoopDelaySampler({ windowMs: 60_000 });
    expect(recentDelayMs()).toBe(0);
    await stallEventLoop(400);
    // At least most of the stall (the sampling interval is 20 ms); a lower bound only, never an upper one.
    expect(recentDelayMs()).toBeGreaterThanOrEqual(300);
  });

  it('keeps reporting a stall for a whole window after the read that saw it, then forgets it', async () => {
    let t = 0;
    const recentDelayMs = createEventLoopDelaySampler({ windowMs: 5000, now: () => t });
    recentDelayMs();
    await stallEventLoop(400);
    t = 1000;
    expect(recentDelayMs()).toBeGreaterThanOrEqual(300);
    t = 5000; // the window turns over: the stall is now the previous window's
    expect(recentDelayMs()).toBeGreaterThanOrEqual(300);
    t = 10_000; // and over again, with no stall since
    expect(recentDelayMs()).toBeLessThan(300);
  });
});

describe('/readyz with the real sampler', () => {
  it('is not ready after the event loop stalled longer than MAX_EVENT_LOOP_DELAY_MS', async () => {
    const relay = createRelayHarness({ environment: { MAX_EVENT_LOOP_DELAY_MS: '100' } });
    // The first probe starts sampling.
    expect((await relay.app.request(`${RELAY_ORIGIN}/readyz`)).status).toBe(200);
    await stallEventLoop(400);
    const response = await relay.app.request(`${RELAY_ORIGIN}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as {
      status: string;
      instance: { event_loop: string; event_loop_delay_ms: number };
    };
    expect(body.status).toBe('not_ready');
    expect(body.instance.event_loop).toBe('slow');
    expect(body.instance.event_loop_delay_ms).toBeGreaterThanOrEqual(300);
    relay.close();
  });
});
