// TRUST_PROXY: which peers' X-Forwarded-For the relay believes, as Express's `trust proxy` names them: a number of
// proxies in front of the relay, or the proxies' addresses and networks. Never "every peer": a visitor who reaches an
// instance directly would then choose the address its quotas count.
import { isIP } from 'node:net';
import { parseIp, rangeOf } from './ip-address.ts';
import { embeddedIpv4Ranges } from './ipv4-in-ipv6.ts';

/**
 * `hops`: the number of proxies in front of the relay, each trusted whatever its address (0: trust none).
 * `addresses`: exact addresses and CIDR networks (IPv4 and IPv6), e.g. `10.0.0.0/8`, `::1`; a peer elsewhere is
 * not trusted, so its X-Forwarded-For is ignored.
 */
export type TrustedProxies = { hops: number } | { addresses: readonly string[] };

export const NO_TRUSTED_PROXIES: TrustedProxies = { hops: 0 };
export const MAX_TRUSTED_HOPS = 32;

/** One list entry: the address (IPv6 possibly in brackets) and, for a network, its prefix length. */
export function parseProxyEntry(entry: string): { address: string; family: 4 | 6; prefix: number | null } | null {
  const [spelled = '', prefixText, ...rest] = entry.split('/');
  if (rest.length > 0) return null;
  const address = spelled.startsWith('[') && spelled.endsWith(']') ? spelled.slice(1, -1) : spelled;
  // A zone (fe80::1%eth0) names an interface of this machine, never a peer's address in a header.
  const family = address.includes('%') ? 0 : isIP(address);
  if (family !== 4 && family !== 6) return null;
  if (prefixText === undefined) return { address, family, prefix: null };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > (family === 4 ? 32 : 128)) return null;
  return { address, family, prefix: Number(prefixText) };
}

/** The setting's value, or why it is refused (said to the operator at start). Unset means trust none. */
export function parseTrustProxy(text: string | undefined): TrustedProxies | { refused: string } {
  const value = text?.trim() ?? '';
  if (value === '' || value === 'false') return NO_TRUSTED_PROXIES;
  if (value === 'true') {
    return {
      refused:
        'true would believe X-Forwarded-For from every peer, so a visitor reaching an instance directly could pick the address its quotas count. Give the number of proxies in front of the relay (e.g. 1) or their addresses (e.g. 10.0.0.0/8, ::1).',
    };
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= MAX_TRUSTED_HOPS
      ? { hops }
      : { refused: `must be a number of proxies from 0 to ${MAX_TRUSTED_HOPS}, or their addresses` };
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => parseProxyEntry(entry) === null);
  if (bad.length > 0) {
    return {
      refused: `${bad.map((entry) => JSON.stringify(entry)).join(', ')} is not an address or network: give a number of proxies (e.g. 1) or addresses and CIDR networks separated by commas (e.g. 10.0.0.0/8, 127.0.0.1, ::1)`,
    };
  }
  const covered = coverage(entries);
  if (covered.ipv4 === IPV4_SPACE || covered.ipv6 === IPV6_SPACE) {
    return {
      refused: `${value} covers every ${covered.ipv4 === IPV4_SPACE ? 'IPv4' : 'IPv6'} address, so it would believe X-Forwarded-For from every peer: a visitor reaching an instance directly could pick the address its quotas count. Name only your proxies' addresses or networks (e.g. 10.0.0.0/8, ::1).${covered.ipv4 === IPV4_SPACE ? IPV4_IN_IPV6_NOTE : ''}`,
    };
  }
  return { addresses: entries };
}

const IPV4_SPACE = 1n << 32n;
const IPV4_IN_IPV6_NOTE =
  ' IPv6 networks that stand for IPv4 hosts count as those hosts: ::ffff:0:0/96, ::/96, 64:ff9b::/96, 64:ff9b:1::/48, 2002::/16.';
const IPV6_SPACE = 1n << 128n;
/**
 * More than this is "very broad": twice the largest private network of each family (10.0.0.0/8, fc00::/7), so the
 * private networks and loopback together pass, and a list reaching into the public internet at large does not.
 */
const BROAD_IPV4 = 1n << 25n;
const BROAD_IPV6 = 1n << 122n;

/**
 * How many IPv4 and IPv6 addresses a list trusts, overlaps counted once. An IPv6 network where IPv6 writes IPv4
 * addresses (`::ffff:0:0/96`, NAT64's `64:ff9b::/96`, 6to4's `2002::/16`...: ipv4-in-ipv6.ts) trusts the IPv4 hosts
 * it stands for, so it counts toward IPv4 too: `64:ff9b::/96` covers every IPv4 address.
 */
export function coverage(entries: readonly string[]): { ipv4: bigint; ipv6: bigint } {
  const ipv4: [bigint, bigint][] = [];
  const ipv6: [bigint, bigint][] = [];
  for (const entry of entries) {
    const parsed = parseProxyEntry(entry);
    const address = parsed === null ? null : parseIp(parsed.address);
    if (parsed === null || address === null) continue;
    const range = rangeOf(address, parsed.prefix ?? (parsed.family === 4 ? 32 : 128));
    if (address.family === 4) ipv4.push(range);
    else {
      ipv6.push(range);
      ipv4.push(...embeddedIpv4Ranges(range));
    }
  }
  return { ipv4: mergedSize(ipv4), ipv6: mergedSize(ipv6) };
}

function mergedSize(ranges: [bigint, bigint][]): bigint {
  const sorted = [...ranges].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let total = 0n;
  let current: [bigint, bigint] | null = null;
  for (const [first, last] of sorted) {
    if (current !== null && first <= current[1] + 1n) {
      if (last > current[1]) current[1] = last;
      continue;
    }
    if (current !== null) total += current[1] - current[0] + 1n;
    current = [first, last];
  }
  return current === null ? total : total + current[1] - current[0] + 1n;
}

/** A line for the operator when the trusted networks are far wider than a load balancer's; null when they are not. */
export function trustProxyWarning(trusted: TrustedProxies): string | null {
  if (!('addresses' in trusted)) return null;
  const covered = coverage(trusted.addresses);
  if (covered.ipv4 <= BROAD_IPV4 && covered.ipv6 <= BROAD_IPV6) return null;
  return `TRUST_PROXY trusts a very broad range (${covered.ipv4} IPv4 and ${covered.ipv6} IPv6 addresses): any peer in it can choose the address its quotas count. Name only your proxies' addresses or their private network.`;
}
