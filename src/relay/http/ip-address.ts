// IP addresses as numbers, so that one address has one spelling (`2001:0DB8::0:1` and `2001:db8::1` are the same
// visitor) and a network is a range that can be compared, merged and cut to a prefix.
import { isIP } from 'node:net';

export interface IpAddress {
  family: 4 | 6;
  /** The address as an unsigned 32-bit (IPv4) or 128-bit (IPv6) number. */
  value: bigint;
}

export const FAMILY_BITS = { 4: 32, 6: 128 } as const;

/** The address, or null when `text` is not one (a zone such as `%eth0` is not a peer's address either). */
export function parseIp(text: string): IpAddress | null {
  const family = text.includes('%') ? 0 : isIP(text);
  if (family === 4) return { family: 4, value: ipv4Value(text) };
  if (family !== 6) return null;
  // isIP has vouched for the syntax: at most one `::`, and an IPv4 tail only in the last 32 bits.
  let groups = text.toLowerCase();
  // So a dot can only be in the last group, which is then a dotted IPv4 address.
  const lastGroupStart = groups.lastIndexOf(':') + 1;
  if (groups.includes('.', lastGroupStart)) {
    const tail = ipv4Value(groups.slice(lastGroupStart));
    groups = `${groups.slice(0, lastGroupStart)}${(tail >> 16n).toString(16)}:${(tail & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = groups.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  const all = [...headGroups, ...zeros, ...tailGroups];
  return { family: 6, value: all.reduce((sum, group) => (sum << 16n) | BigInt(Number.parseInt(group, 16)), 0n) };
}

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((sum, octet) => (sum << 8n) | BigInt(Number(octet)), 0n);
}

/** An IPv4-mapped IPv6 address as the IPv4 address it is; anything else unchanged. */
export function unmapped(address: IpAddress): IpAddress {
  return address.family === 6 && address.value >> 32n === 0xffffn
    ? { family: 4, value: address.value & 0xffffffffn }
    : address;
}

/** The one spelling: dotted IPv4; IPv6 in lower case with the longest run of zero groups compressed (RFC 5952). */
export function formatIp({ family, value }: IpAddress): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => Number((value >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** The first address of the `prefix`-bit network holding `address`. */
export function networkOf(address: IpAddress, prefix: number): IpAddress {
  const hostBits = BigInt(FAMILY_BITS[address.family] - prefix);
  return { family: address.family, value: (address.value >> hostBits) << hostBits };
}

/** The range `[first, last]` a network covers, in its family's numbers. */
export function rangeOf(address: IpAddress, prefix: number): [bigint, bigint] {
  const first = networkOf(address, prefix).value;
  return [first, first + (1n << BigInt(FAMILY_BITS[address.family] - prefix)) - 1n];
}
