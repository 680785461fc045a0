// The walk from the connection's peer leftwards through X-Forwarded-For: it steps past a hop only while that hop is
// a trusted proxy (by count or by address), so entries a visitor wrote are never believed.
import { describe, expect, it } from 'vitest';
import { clientAddressFrom, proxyTrust, quotaKeyOf } from '../../../src/relay/http/client-address.ts';
import type { TrustedProxies } from '../../../src/relay/http/trusted-proxies.ts';

const NONE: TrustedProxies = { hops: 0 };
const ONE: TrustedProxies = { hops: 1 };
const TWO: TrustedProxies = { hops: 2 };
const PRIVATE: TrustedProxies = { addresses: ['10.0.0.0/8'] };
const LOOPBACK: TrustedProxies = { addresses: ['127.0.0.1', '::1'] };

const cases: [string, TrustedProxies, string | undefined, string | undefined, string][] = [
  // [what, TRUST_PROXY, socket peer, X-Forwarded-For, client address]
  ['trusting none: the peer, whatever the header says', NONE, '203.0.113.9', '198.51.100.7', '203.0.113.9'],
  [
    'one hop: the entry the proxy appended, not what the visitor wrote before it',
    ONE,
    '10.0.0.2',
    '6.6.6.6, 198.51.100.7',
    '198.51.100.7',
  ],
  ['two hops: the entry the outer proxy appended', TWO, '10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.3', '198.51.100.7'],
  ['two hops but one entry: never beyond the left end', TWO, '10.0.0.2', '198.51.100.7', '198.51.100.7'],
  ["one hop, no header (the proxy's own health check): the peer", ONE, '10.0.0.2', undefined, '10.0.0.2'],
  ["addresses: a trusted peer's last entry", PRIVATE, '10.0.0.2', '6.6.6.6, 198.51.100.7', '198.51.100.7'],
  [
    'addresses: an untrusted peer (straight to the instance) is the client',
    PRIVATE,
    '198.51.100.50',
    '1.2.3.4',
    '198.51.100.50',
  ],
  [
    'addresses: past every trusted proxy in the chain',
    PRIVATE,
    '10.0.0.2',
    '6.6.6.6, 198.51.100.7, 10.1.1.1, 10.2.2.2',
    '198.51.100.7',
  ],
  [
    'addresses: stops at the first untrusted hop, even if a trusted one is further left',
    PRIVATE,
    '10.0.0.2',
    '10.9.9.9, 198.51.100.7',
    '198.51.100.7',
  ],
  ['addresses: every hop trusted, the left-most entry', PRIVATE, '10.0.0.2', '10.0.0.5, 10.0.0.6', '10.0.0.5'],
  ['an IPv4-mapped peer matches an IPv4 network', PRIVATE, '::ffff:10.0.0.2', '198.51.100.7', '198.51.100.7'],
  [
    'an IPv4-mapped untrusted peer is counted in its IPv4 form',
    PRIVATE,
    '::ffff:127.0.0.1',
    '198.51.100.7',
    '127.0.0.1',
  ],
  ['an IPv4-mapped entry is counted in its IPv4 form', ONE, '10.0.0.2', '::FFFF:198.51.100.7', '198.51.100.7'],
  ['IPv6 loopback proxy, IPv6 client (lower-cased)', LOOPBACK, '::1', '2001:DB8::7', '2001:db8::7'],
  ['an IPv6 network', { addresses: ['fd00::/8'] }, 'fd12::1', '2001:db8::7, fd00::2', '2001:db8::7'],
  [
    'an IPv4-mapped IPv6 network matches an IPv4 peer',
    { addresses: ['::ffff:10.0.0.0/104'] },
    '10.0.0.2',
    '198.51.100.7',
    '198.51.100.7',
  ],
  ['a bracketed IPv6 proxy address', { addresses: ['[2001:db8::1]'] }, '2001:db8::1', '198.51.100.7', '198.51.100.7'],
  ['an entry with a port: the address', PRIVATE, '10.0.0.2', '198.51.100.7:51234', '198.51.100.7'],
  ['a bracketed IPv6 entry with a port: the address', PRIVATE, '10.0.0.2', '[2001:db8::1]:443', '2001:db8::1'],
  [
    "a trusted proxy's entry with a port is still trusted",
    PRIVATE,
    '10.0.0.2',
    '198.51.100.7, 10.0.0.3:8080',
    '198.51.100.7',
  ],
  ['empty entries are not hops', ONE, '10.0.0.2', ' , 198.51.100.7 ,', '198.51.100.7'],
  [
    'a garbage entry from a trusted proxy is the client, as a key of its own',
    PRIVATE,
    '10.0.0.2',
    '6.6.6.6, not-an-address',
    'not-an-address',
  ],
  [
    'a garbage entry is never trusted as a proxy',
    { addresses: ['10.0.0.0/8'] },
    '10.0.0.2',
    '198.51.100.7, garbage',
    'garbage',
  ],
  ['a garbage entry is cut to 64 characters', ONE, '10.0.0.2', 'x'.repeat(500), 'x'.repeat(64)],
  ['no socket (app.request), addresses: unknown', PRIVATE, undefined, '198.51.100.7', 'unknown'],
  [
    "no socket (app.request), one hop: the header's last entry",
    ONE,
    undefined,
    '6.6.6.6, 198.51.100.7',
    '198.51.100.7',
  ],
  [
    'an IPv6 entry with leading zeros: its canonical spelling',
    ONE,
    '10.0.0.2',
    '2001:0DB8:0000:0000:0000:0000:0000:0007',
    '2001:db8::7',
  ],
  [
    'an IPv6 entry with a zero group written out: compressed',
    ONE,
    '10.0.0.2',
    '2001:db8:0:0:1:0:0:7',
    '2001:db8::1:0:0:7',
  ],
  ['an IPv4-mapped entry in hex: the IPv4 address', ONE, '10.0.0.2', '::ffff:cb00:7109', '203.0.113.9'],
  [
    'an IPv4-mapped entry written out in full: the IPv4 address',
    ONE,
    '10.0.0.2',
    '0:0:0:0:0:FFFF:203.0.113.9',
    '203.0.113.9',
  ],
  ['a hex IPv4-mapped peer matches an IPv4 network', PRIVATE, '::ffff:a00:2', '198.51.100.7', '198.51.100.7'],
  [
    'a non-canonical trusted IPv6 proxy is still trusted',
    { addresses: ['fd00::/8'] },
    'FD00:0000::0001',
    '2001:db8::7',
    '2001:db8::7',
  ],
];

describe('the client address', () => {
  it.each(cases)('%s', (_, trusted, socket, forwardedFor, expected) => {
    expect(clientAddressFrom(socket, forwardedFor, proxyTrust(trusted))).toBe(expected);
  });
});

describe('the quota key of a client address', () => {
  it.each([
    ['203.0.113.9', 64, '203.0.113.9'],
    ['2001:db8:7:1:a:b:c:d', 64, '2001:db8:7:1::/64'],
    ['2001:db8:7:1::1', 64, '2001:db8:7:1::/64'],
    ['2001:db8:7:1:ffff:ffff:ffff:ffff', 64, '2001:db8:7:1::/64'],
    ['2001:db8:7:1:a:b:c:d', 48, '2001:db8:7::/48'],
    ['2001:db8:7:1ab:a:b:c:d', 56, '2001:db8:7:100::/56'],
    ['2001:db8:7:1:a:b:c:d', 128, '2001:db8:7:1:a:b:c:d'],
    ['::1', 64, '::/64'],
    ['not-an-address', 64, 'not-an-address'],
    ['unknown', 64, 'unknown'],
  ])('%s with prefix %i: %s', (address, prefix, expected) => {
    expect(quotaKeyOf(address, prefix)).toBe(expected);
  });
});
