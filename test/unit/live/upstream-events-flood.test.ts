// An unsigned flood of POST /v1/upstream-events, as anyone on the internet can send it: it is cut off early by a quota
// of the path's own per source address, writes one log line per streak rather than one per request, and never stops
// the service's own signed events from another address.
import { afterEach, describe, expect, it } from 'vitest';
import { signEvent } from '../../../src/relay/live/event-signature.ts';
import { UPSTREAM_EVENTS_PATH } from '../../../src/relay/upstream/contract.ts';
import { createRelayHarness, RELAY_ORIGIN } from '../relay/relay-harness.ts';

const SECRET = 'Vq3sN8xL2mR7tB4yK9wZ1cF6hJ0pD5gA';
const FLOODER = '198.51.100.66';
const SERVICE = '192.0.2.10';
let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

let nextEvent = 0;
/** A call to the events path from `address` (through the trusted proxy), signed with `secret` unless null. */
function post(address: string, secret: string | null = SECRET) {
  const body = JSON.stringify({
    id: `evt-${++nextEvent}`,
    type: 'conversation.message_created',
    conversation: 'cnv_unknown',
    occurred_at: new Date().toISOString(),
  });
  const signature = secret === null ? 't=1,v1=00' : signEvent(secret, Math.floor(Date.now() / 1000), body);
  return harness.app.request(`${RELAY_ORIGIN}${UPSTREAM_EVENTS_PATH}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Upstream-Signature': signature, 'X-Forwarded-For': address },
    body,
  });
}

const linesAbout = (pattern: RegExp) => harness.logLines.filter((line) => pattern.test(line));

describe('an unsigned flood of upstream events', () => {
  it("is cut off after 30 refusals from its address, logs one line for the streak, and the service's events still pass", async () => {
    harness = createRelayHarness({ environment: { TRUST_PROXY: '1', UPSTREAM_EVENTS_SECRET: SECRET } });
    const statuses: number[] = [];
    for (let index = 0; index < 200; index++) statuses.push((await post(FLOODER, null)).status);
    expect(statuses.slice(0, 31)).toEqual(Array<number>(31).fill(401));
    expect(statuses.slice(31)).toEqual(Array<number>(169).fill(429));
    // Cut off before any work: a correctly signed call from that address is refused too until the window ends.
    expect((await post(FLOODER)).status).toBe(429);

    const eventLines = linesAbout(/upstream-events|[Uu]pstream events/);
    expect(eventLines).toHaveLength(1);
    expect(eventLines[0]).toMatch(/"level":"warn".*Upstream events are being refused \(first: bad_signature\)/);

    // The service, from its own address, is not held back; its accepted event ends the streak with one line.
    expect((await post(SERVICE)).status).toBe(204);
    expect(linesAbout(/Upstream events accepted again after 201 refused/)).toHaveLength(1);
    expect(linesAbout(/"route":"\/v1\/upstream-events"/)).toHaveLength(1);
  });

  it('a quota for every call per source address (UPSTREAM_EVENTS_PER_MINUTE_PER_IP), above what the service sends', async () => {
    harness = createRelayHarness({
      environment: { TRUST_PROXY: '1', UPSTREAM_EVENTS_SECRET: SECRET, UPSTREAM_EVENTS_PER_MINUTE_PER_IP: '5' },
    });
    const statuses: number[] = [];
    for (let index = 0; index < 7; index++) statuses.push((await post(SERVICE)).status);
    expect(statuses).toEqual([204, 204, 204, 204, 204, 429, 429]);
  });

  it('by default lets the service send 6,000 events a minute from one address', async () => {
    harness = createRelayHarness({ environment: { TRUST_PROXY: '1', UPSTREAM_EVENTS_SECRET: SECRET } });
    expect(harness.settings.upstreamEventsPerMinutePerIp).toBe(6000);
  });
});
