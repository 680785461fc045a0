// The IPv6 networks whose addresses stand for IPv4 addresses: a peer in one of them is an IPv4 host, reached through a
// dual-stack socket, a NAT64 translator or a 6to4 relay. Trusting such a network whole trusts every IPv4 host on the
// internet, so TRUST_PROXY counts what it trusts there as the IPv4 addresses they stand for (trusted-proxies.ts).
import { parseIp, rangeOf } from './ip-address.ts';

const IPV4_BITS = 0xffffffffn;

/** Each network, and where its addresses hold the IPv4 one: `(address - first) >> shift`, 32 bits. */
const EMBEDDING_NETWORKS: { network: string; prefix: number; shift: bigint }[] = [
  // IPv4-mapped: how a dual-stack socket reports an IPv4 peer.
  { network: '::ffff:0:0', prefix: 96, shift: 0n },
  // IPv4-compatible (deprecated, still parsed by stacks).
  { network: '::', prefix: 96, shift: 0n },
  // NAT64's well-known prefix.
  { network: '64:ff9b::', prefix: 96, shift: 0n },
  // NAT64 for local use: each translator takes a prefix inside it, nearly always a /96 (the IPv4 address last), so
  // a /96 anywhere in it may stand for every IPv4 address.
  { network: '64:ff9b:1::', prefix: 48, shift: 0n },
  // 6to4: 2002:AABB:CCDD::/48 belongs to the IPv4 host AA.BB.CC.DD.
  { network: '2002::', prefix: 16, shift: 80n },
];

const RANGES = EMBEDDING_NETWORKS.map(({ network, prefix, shift }) => {
  const address = parseIp(network);
  if (address === null) throw new TypeError(`${network} is not an address`);
  return { range: rangeOf(address, prefix), shift };
});

/**
 * The IPv4 addresses a range of IPv6 addresses stands for, as IPv4 ranges (none when it lies outside every network
 * above). Written for the ranges of CIDR networks: one that is smaller than the span of a whole IPv4 space in a
 * network never crosses from one such span to the next.
 */
export function embeddedIpv4Ranges([first, last]: [bigint, bigint]): [bigint, bigint][] {
  const found: [bigint, bigint][] = [];
  for (const { range, shift } of RANGES) {
    const from = first > range[0] ? first : range[0];
    const to = last < range[1] ? last : range[1];
    if (from > to) continue;
    const low = (from - range[0]) >> shift;
    const high = (to - range[0]) >> shift;
    if (high - low >= IPV4_BITS) found.push([0n, IPV4_BITS]);
    else if ((low & IPV4_BITS) <= (high & IPV4_BITS)) found.push([low & IPV4_BITS, high & IPV4_BITS]);
    else found.push([0n, high & IPV4_BITS], [low & IPV4_BITS, IPV4_BITS]);
  }
  return found;
}
