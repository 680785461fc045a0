// A loopback port that was free a moment ago, for a server whose address must be known before it starts (a relay
// named in PUBLIC_ORIGIN, a redis-server restarted on the same port). The server takes it at once; loopback only.
import { createServer, type AddressInfo } from 'node:net';

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/**
 * `count` loopback ports, all different, for servers that start together: each probe is held until all are bound, so
 * the kernel cannot hand out one port twice (asked one after another, it may give a port just closed again).
 */
export async function freePorts(count: number): Promise<number[]> {
  const probes = Array.from({ length: count }, () => createServer());
  await Promise.all(probes.map((probe) => new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))));
  const ports = probes.map((probe) => (probe.address() as AddressInfo).port);
  await Promise.all(probes.map((probe) => new Promise<void>((resolve) => probe.close(() => resolve()))));
  return ports;
}
