// A client's address is resolved once per peer and X-Forwarded-For: a panel polls from the same connection every few
// seconds, and each request would otherwise parse and canonicalise the same addresses again. What is kept answers
// exactly what resolving again would.
import type { Context } from 'hono';
import { expect, it, vi } from 'vitest';
import { createClientAddress } from '../../../src/relay/http/client-address.ts';

// Module-level parsing (at import) runs before this file's own variables exist: the count lives in the mock.
const counter = vi.hoisted(() => ({ parsed: 0 }));
vi.mock('../../../src/relay/http/ip-address.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/relay/http/ip-address.ts')>();
  return {
    ...original,
    parseIp: (text: string) => {
      counter.parsed += 1;
      return original.parseIp(text);
    },
  };
});

/** What createClientAddress reads of a request on @hono/node-server: the socket's peer and X-Forwarded-For. */
const request = (peer: string, forwardedFor?: string) =>
  ({
    env: { incoming: { socket: { remoteAddress: peer } } },
    req: { header: (name: string) => (name === 'X-Forwarded-For' ? forwardedFor : undefined) },
  }) as unknown as Context;

it('resolves a peer and its X-Forwarded-For once, and keeps each pair apart', () => {
  const addressOf = createClientAddress({ hops: 1 }, 64);
  expect(addressOf(request('10.0.0.2', '2001:DB8:1:2::7'))).toBe('2001:db8:1:2::/64');
  const afterFirst = counter.parsed;
  expect(addressOf(request('10.0.0.2', '2001:DB8:1:2::7'))).toBe('2001:db8:1:2::/64');
  expect(counter.parsed).toBe(afterFirst);
  expect(addressOf(request('10.0.0.2', '198.51.100.7'))).toBe('198.51.100.7');
  expect(addressOf(request('10.0.0.2'))).toBe('10.0.0.2');
  expect(addressOf(request('::ffff:203.0.113.9'))).toBe('203.0.113.9');
  // A long header is resolved as always, and not kept.
  const long = `${'6.6.6.6, '.repeat(40)}198.51.100.8`;
  expect(addressOf(request('10.0.0.2', long))).toBe('198.51.100.8');
  const beforeAgain = counter.parsed;
  expect(addressOf(request('10.0.0.2', long))).toBe('198.51.100.8');
  expect(counter.parsed).toBeGreaterThan(beforeAgain);
});
