// REDIS_SENTINELS: `host:port` entries, comma-separated, as Sentinel's own configuration and other products name them
// (`10.0.0.21:26379,10.0.0.22:26379`, `sentinel-1.internal`, `[fd00::21]:26379`). Read character by character, never
// with a pattern that could backtrack, and refused with a sentence that names the entry's position, not its text.
import { isIP } from 'node:net';
import { SENTINEL_DEFAULT_PORT } from '../shared-state/redis-target.ts';

export interface SentinelAddress {
  host: string;
  port: number;
}

/** More would be a list pasted by mistake: a Sentinel group has a handful of members. */
const MOST_SENTINELS = 16;
/** A DNS name's longest spelling. */
const LONGEST_HOST = 253;

function isHostName(host: string): boolean {
  if (host.length === 0 || host.length > LONGEST_HOST || host.startsWith('.') || host.startsWith('-')) return false;
  for (const character of host) {
    const letterOrDigit =
      (character >= 'a' && character <= 'z') ||
      (character >= 'A' && character <= 'Z') ||
      (character >= '0' && character <= '9');
    if (!letterOrDigit && character !== '-' && character !== '.' && character !== '_') return false;
  }
  return !host.includes('..');
}

function portOf(text: string): number | null {
  if (text.length === 0 || text.length > 5) return null;
  for (const character of text) if (character < '0' || character > '9') return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** One entry: `host`, `host:port`, `[IPv6]` or `[IPv6]:port`; null when it is none of them. */
function parseEntry(entry: string): SentinelAddress | null {
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close === -1) return null;
    const host = entry.slice(1, close);
    const rest = entry.slice(close + 1);
    if (isIP(host) !== 6) return null;
    if (rest === '') return { host, port: SENTINEL_DEFAULT_PORT };
    const port = rest.startsWith(':') ? portOf(rest.slice(1)) : null;
    return port === null ? null : { host, port };
  }
  const colon = entry.indexOf(':');
  // An IPv6 address must be bracketed, or its last group would read as a port.
  if (colon !== entry.lastIndexOf(':')) return null;
  const host = colon === -1 ? entry : entry.slice(0, colon);
  if (isIP(host) !== 4 && !isHostName(host)) return null;
  if (colon === -1) return { host, port: SENTINEL_DEFAULT_PORT };
  const port = portOf(entry.slice(colon + 1));
  return port === null ? null : { host, port };
}

export function parseSentinelAddresses(text: string): { addresses: SentinelAddress[] } | { refused: string } {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.length > MOST_SENTINELS)
    return { refused: `lists ${entries.length} Sentinels; at most ${MOST_SENTINELS}` };
  const addresses: SentinelAddress[] = [];
  for (const [index, entry] of entries.entries()) {
    const address = parseEntry(entry);
    if (address === null)
      return {
        refused: `entry ${index + 1} is not host:port (a name, an IPv4 address or a bracketed IPv6 address, and a port from 1 to 65535; comma-separated)`,
      };
    addresses.push(address);
  }
  return { addresses };
}
