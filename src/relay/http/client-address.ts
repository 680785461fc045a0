// The address quotas are counted against: the right-most X-Forwarded-For entry that a trusted proxy did not add.
// Each proxy appends the address of the peer it heard from, so the walk starts at this connection's peer and steps
// left only while the hop it stands on is a trusted proxy (by count or by address, TRUST_PROXY). Entries further
// left were written by whoever sent the request and are never believed; a peer that is not trusted (a visitor
// reaching an instance directly) is the client itself, whatever its X-Forwarded-For says.
import type { Context } from 'hono';
import { BlockList, isIP } from 'node:net';
import { formatIp, networkOf, parseIp, unmapped } from './ip-address.ts';
import { parseProxyEntry, type TrustedProxies } from './trusted-proxies.ts';

/** Whether the hop `index` steps from the socket peer (0), at `address`, is a proxy we believe. */
export type ProxyTrust = (address: string, index: number) => boolean;

export function proxyTrust(trusted: TrustedProxies): ProxyTrust {
  if ('hops' in trusted) {
    const { hops } = trusted;
    return (_address, index) => index < hops;
  }
  // node:net's BlockList does the CIDR matching, and matches an IPv4-mapped IPv6 peer (::ffff:10.1.2.3, as Node
  // reports IPv4 peers on a dual-stack socket) against IPv4 rules.
  const list = new BlockList();
  for (const entry of trusted.addresses) {
    const parsed = parseProxyEntry(entry);
    if (parsed === null)
      throw new TypeError('TRUST_PROXY holds an entry that is not an address (readSettings checks them)');
    const type = parsed.family === 4 ? 'ipv4' : 'ipv6';
    if (parsed.prefix === null) list.addAddress(parsed.address, type);
    else list.addSubnet(parsed.address, parsed.prefix, type);
  }
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}

/** Longer than any address with a port; a longer entry is cut so that a quota key stays small. */
const MAX_ENTRY_LENGTH = 64;

/**
 * One X-Forwarded-For entry (or the socket's address) as the key it is counted by: the address without a port
 * (`203.0.113.7:51234`, `[2001:db8::1]:443`, as some proxies write it), an IPv4-mapped IPv6 address in its IPv4
 * form, and an IPv6 address in its one canonical spelling (lower case, zeros compressed), so the same visitor is one
 * key however the address reached us. An entry that is not an address is kept as it is (cut to 64 characters): it is
 * never trusted as a proxy, but when it is the client's entry, a proxy we trust wrote it, and counting it as its own
 * key keeps that visitor from sharing a quota with everyone behind the proxy.
 */
export function normaliseAddress(entry: string): string {
  // Cut before the patterns: no address is this long, and a header entry can be as long as the server lets it be.
  if (entry.length > MAX_ENTRY_LENGTH) return entry.slice(0, MAX_ENTRY_LENGTH);
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(entry);
  const parsed = parseIp(bracketed?.[1] ?? withPort?.[1] ?? entry);
  return parsed === null ? entry.slice(0, MAX_ENTRY_LENGTH) : formatIp(unmapped(parsed));
}

/**
 * What a quota counts for a client address: an IPv4 address as it is, an IPv6 address by its network of
 * `ipv6Prefix` bits (`2001:db8:1:2::/64`). One home or phone gets a whole /64 and picks any address in it at will, so
 * counting single IPv6 addresses would give each visitor 2^64 quotas.
 */
export function quotaKeyOf(address: string, ipv6Prefix: number): string {
  const parsed = parseIp(address);
  if (parsed === null || parsed.family === 4 || ipv6Prefix >= 128) return address;
  return `${formatIp(networkOf(parsed, ipv6Prefix))}/${ipv6Prefix}`;
}

/**
 * The client's address from the connection's peer (`undefined` when there is none, as under app.request) and the
 * X-Forwarded-For header (several headers arrive joined by commas, which is the same list).
 */
export function clientAddressFrom(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trusts: ProxyTrust,
): string {
  const forwarded = (forwardedFor ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  // Right to left: the peer, then the entry its proxy appended, and so on.
  const hops = [socketAddress ?? 'unknown', ...forwarded.reverse()].map(normaliseAddress);
  let index = 0;
  while (index < hops.length - 1 && trusts(hops[index]!, index)) index++;
  return hops[index]!;
}

/**
 * How many peers (with their X-Forwarded-For) keep their resolved address: a panel polls every few seconds from the
 * same connection, and parsing and canonicalising its address on every request was a measurable part of a poll.
 */
export const RESOLVED_ADDRESS_CACHE_SIZE = 4096;
/** A longer X-Forwarded-For is resolved every time, not kept: what a cache holds stays small. */
const MAX_CACHED_FORWARDED_LENGTH = 256;

/**
 * The request's client, as quotas count it: its address, or its IPv6 network of `ipv6Prefix` bits. The answer
 * depends on the peer's address and X-Forwarded-For alone, so it is kept for each pair (bounded, the oldest dropped).
 */
export function createClientAddress(trusted: TrustedProxies, ipv6Prefix: number): (c: Context) => string {
  const trusts = proxyTrust(trusted);
  const resolved = new Map<string, string>();
  return (c) => {
    const peer = socketAddress(c.env);
    const forwarded = c.req.header('X-Forwarded-For');
    const resolve = () => quotaKeyOf(clientAddressFrom(peer, forwarded, trusts), ipv6Prefix);
    if (peer === undefined || (forwarded !== undefined && forwarded.length > MAX_CACHED_FORWARDED_LENGTH)) {
      return resolve();
    }
    const pair = forwarded === undefined ? peer : `${peer}\u0000${forwarded}`;
    let address = resolved.get(pair);
    if (address === undefined) {
      address = resolve();
      if (resolved.size >= RESOLVED_ADDRESS_CACHE_SIZE) resolved.delete(resolved.keys().next().value!);
      resolved.set(pair, address);
    }
    return address;
  };
}

/** @hono/node-server puts Node's request on `env.incoming`; under app.request() there is none. */
function socketAddress(env: unknown): string | undefined {
  if (typeof env !== 'object' || env === null || !('incoming' in env)) return undefined;
  const incoming = env.incoming;
  if (typeof incoming !== 'object' || incoming === null || !('socket' in incoming)) return undefined;
  const socket = incoming.socket;
  if (typeof socket !== 'object' || socket === null || !('remoteAddress' in socket)) return undefined;
  return typeof socket.remoteAddress === 'string' ? socket.remoteAddress : undefined;
}

/**
 * The request's client by its whole address, an IPv6 one too: for a count that neighbours in the same network must
 * not share (the events path's, where one neighbour's flood would otherwise refuse the service's events).
 */
export function createSourceAddress(trusted: TrustedProxies): (c: Context) => string {
  return createClientAddress(trusted, 128);
}
