// TRUST_PROXY: which peers' X-Forwarded-For the relay believes, as Express's `trust proxy` names them: a number of
// proxies in front of the relay, or the proxies' addresses and networks. Never "every peer": a visitor who reaches an
// instance directly would then choose the address its quotas count.
import { isIP } from 'node:net';

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
    return hops <= MAX_TRUSTED_HOPS ? { hops } : { refused: `must be a number of proxies from 0 to ${MAX_TRUSTED_HOPS}, or their addresses` };
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => parseProxyEntry(entry) === null);
  if (bad.length > 0) {
    return { refused: `${bad.map((entry) => JSON.stringify(entry)).join(', ')} is not an address or network: give a number of proxies (e.g. 1) or addresses and CIDR networks separated by commas (e.g. 10.0.0.0/8, 127.0.0.1, ::1)` };
  }
  return { addresses: entries };
}
