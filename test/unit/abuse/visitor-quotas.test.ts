// Quotas count a visitor, not an address string: a hostile visitor behind a trusted proxy rotates through the
// addresses of its own IPv6 /64 and through other spellings of one address, against a conversation quota of 2.
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayHarness } from '../relay/relay-harness.ts';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

/** One create per forwarded address (the trusted proxy appended it); the statuses in order. */
async function createsFrom(addresses: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const address of addresses) {
    const response = await harness.fromFrame('/v1/conversations', {
      body: { client_id: 'demo-client' },
      headers: { 'X-Forwarded-For': address },
    });
    statuses.push(response.status);
  }
  return statuses;
}

const TEN_OF_ONE_64 = Array.from(
  { length: 10 },
  (_, index) => `2001:db8:7:1:${(index + 1).toString(16)}::${index * 7 + 1}`,
);

describe('quotas count a visitor', () => {
  it('ten addresses of one IPv6 /64 share one conversation quota', async () => {
    harness = createRelayHarness({ environment: { TRUST_PROXY: '1', CONVERSATIONS_PER_HOUR_PER_IP: '2' } });
    expect(await createsFrom(TEN_OF_ONE_64)).toEqual([201, 201, ...Array<number>(8).fill(429)]);
    expect(harness.simulator.counters.conversationsCreated).toBe(2);
    // A visitor of another /64 is not crowded out by them.
    expect(await createsFrom(['2001:db8:7:2::1'])).toEqual([201]);
  });

  it('ten addresses of one /64 share the per-address request quota too', async () => {
    harness = createRelayHarness({ environment: { TRUST_PROXY: '1', REQUESTS_PER_MINUTE_PER_IP: '3' } });
    const statuses: number[] = [];
    for (const address of TEN_OF_ONE_64) {
      statuses.push(
        (
          await harness.fromFrame('/v1/webchat-configuration?client_id=demo-client', {
            headers: { 'X-Forwarded-For': address },
          })
        ).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, ...Array<number>(7).fill(429)]);
  });

  it('QUOTA_IPV6_PREFIX=128 counts each IPv6 address on its own', async () => {
    harness = createRelayHarness({
      environment: { TRUST_PROXY: '1', CONVERSATIONS_PER_HOUR_PER_IP: '2', QUOTA_IPV6_PREFIX: '128' },
    });
    expect(await createsFrom(TEN_OF_ONE_64.slice(0, 3))).toEqual([201, 201, 201]);
  });

  it.each([
    [
      'IPv6 spellings of one address',
      ['2001:db8::7', '2001:0DB8:0000:0000:0000:0000:0000:0007', '2001:db8:0:0::7', '[2001:DB8::7]:443'],
      64,
    ],
    [
      'IPv6 spellings of one address, counted per address',
      ['2001:db8::7', '2001:0DB8:0000:0000:0000:0000:0000:0007', '2001:db8:0:0::7', '[2001:DB8::7]:443'],
      128,
    ],
    [
      'an IPv4 address and its IPv4-mapped spellings',
      ['203.0.113.9', '::ffff:cb00:7109', '::FFFF:203.0.113.9', '0:0:0:0:0:ffff:cb00:7109', '203.0.113.9:4444'],
      64,
    ],
  ])('%s: one quota', async (_, spellings, prefix) => {
    harness = createRelayHarness({
      environment: { TRUST_PROXY: '1', CONVERSATIONS_PER_HOUR_PER_IP: '2', QUOTA_IPV6_PREFIX: String(prefix) },
    });
    expect(await createsFrom(spellings)).toEqual([201, 201, ...Array<number>(spellings.length - 2).fill(429)]);
  });
});
