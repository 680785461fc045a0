// The token endpoint down: browsers get 503 with Retry-After, and the relay asks for a token a bounded number of times
// per minute (backing off), so an outage or a wrong password never hammers the service (or locks the account).
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayHarness } from '../relay/relay-harness.ts';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

describe('the token endpoint down', () => {
  it('every call is 503 upstream_unavailable with Retry-After, and at most 7 token requests in a minute of steady traffic', async () => {
    let clock = Date.parse('2026-11-22T12:00:00Z');
    harness = createRelayHarness({
      now: () => clock,
      environment: { REQUESTS_PER_MINUTE_PER_IP: '1000000', CONVERSATIONS_PER_HOUR_PER_IP: '1000000' },
    });
    harness.simulator.faults.set({ errorRate: 1, match: /oauth\/token/ });
    // apiRequests counts faulted requests too (tokenRequests counts only those that reached the token route); with no
    // token, the relay makes no other upstream call, so every one counted here is a token request.
    const before = harness.simulator.counters.apiRequests;
    // Five requests every second for a minute, on the relay's clock.
    for (let second = 0; second < 60; second++) {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => harness.fromFrame('/v1/conversations', { body: { client_id: 'demo-client' } })),
      );
      for (const response of answers) {
        expect(response.status).toBe(503);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('upstream_unavailable');
        expect(Number(response.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
      }
      clock += 1000;
    }
    const attempts = harness.simulator.counters.apiRequests - before;
    // Backoff from 1 s, doubling: requests at about 0, 1, 3, 7, 15, 31 s.
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeLessThanOrEqual(7);
    // When it comes back, the next request after the backoff window gets a token and is served.
    harness.simulator.faults.reset();
    clock += 61_000;
    expect((await harness.fromFrame('/v1/conversations', { body: { client_id: 'demo-client' } })).status).toBe(201);
  });
});
