// An unsigned flood of POST /v1/upstream-events, as anyone on the internet can send it: it is cut off early by a quota
// of the path's own per source address, writes one log line per streak rather than one per request, and never stops
// the service's own signed events, whether the flood comes from another address, from the service's IPv6 /64, or from
// the service's very address.
import { afterEach, describe, expect, it } from 'vitest';
import { UPSTREAM_EVENTS_PATH, signEvent } from '../../../src/relay/upstream/contract/index.ts';
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

    const eventLines = linesAbout(/upstream-events|[Uu]pstream events/);
    expect(eventLines).toHaveLength(1);
    expect(eventLines[0]).toMatch(/"level":"warn".*Upstream events are being refused \(first: bad_signature\)/);

    // The service, from its own address, is not held back; its accepted event ends the streak with one line.
    expect((await post(SERVICE)).status).toBe(204);
    expect(linesAbout(/Upstream events accepted again after 200 refused/)).toHaveLength(1);
    expect(linesAbout(/"route":"\/v1\/upstream-events"/)).toHaveLength(1);
  });

  it("never refuses the service's signed events for what its neighbours in its IPv6 /64 sent", async () => {
    harness = createRelayHarness({ environment: { TRUST_PROXY: '1', UPSTREAM_EVENTS_SECRET: SECRET } });
    const service = '2001:db8:5:6::10';
    const neighbours = ['2001:db8:5:6::66', '2001:db8:5:6:aaaa:bbbb:cccc:dddd'];
    for (const neighbour of neighbours) for (let index = 0; index < 40; index++) await post(neighbour, null);
    expect((await post(neighbours[0]!, null)).status).toBe(429);

    const statuses: number[] = [];
    for (let index = 0; index < 10; index++) statuses.push((await post(service)).status);
    expect(statuses).toEqual(Array<number>(10).fill(204));
  });

  it('lets a signed event through from an address cut off for its unsigned calls, and keeps refusing those', async () => {
    harness = createRelayHarness({ environment: { TRUST_PROXY: '1', UPSTREAM_EVENTS_SECRET: SECRET } });
    // Written another way, the same address: one count, one cut-off.
    const spellings = ['2001:db8:5:6::10', '2001:0DB8:5:6:0:0:0:10'];
    for (let index = 0; index < 40; index++) await post(spellings[index % 2]!, null);
    expect((await post(spellings[1]!, null)).status).toBe(429);

    const statuses: number[] = [];
    for (let index = 0; index < 10; index++) statuses.push((await post(spellings[index % 2]!)).status);
    expect(statuses).toEqual(Array<number>(10).fill(204));
    expect((await post(spellings[0]!, null)).status).toBe(429);
  });

  it('reads an unsigned body sent in chunks only up to the cap, then refuses it as too large', async () => {
    harness = createRelayHarness({ environment: { TRUST_PROXY: '1', UPSTREAM_EVENTS_SECRET: SECRET } });
    let chunksPulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        chunksPulled++;
        controller.enqueue(new Uint8Array(1024).fill(0x20));
      },
    });
    const response = await harness.app.request(`${RELAY_ORIGIN}${UPSTREAM_EVENTS_PATH}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': FLOODER },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(chunksPulled).toBeLessThan(10);
  });

  it('a quota for signed calls per source address (UPSTREAM_EVENTS_PER_MINUTE_PER_IP), above what the service sends, which unsigned calls do not spend', async () => {
    harness = createRelayHarness({
      environment: { TRUST_PROXY: '1', UPSTREAM_EVENTS_SECRET: SECRET, UPSTREAM_EVENTS_PER_MINUTE_PER_IP: '5' },
    });
    for (let index = 0; index < 20; index++) await post(SERVICE, null);
    const statuses: number[] = [];
    for (let index = 0; index < 7; index++) statuses.push((await post(SERVICE)).status);
    expect(statuses).toEqual([204, 204, 204, 204, 204, 429, 429]);
  });

  it('by default lets the service send 6,000 events a minute from one address', async () => {
    harness = createRelayHarness({ environment: { TRUST_PROXY: '1', UPSTREAM_EVENTS_SECRET: SECRET } });
    expect(harness.settings.upstreamEventsPerMinutePerIp).toBe(6000);
  });
});
