// The Sentinels' announcement of a failover (`+switch-master` on their pub/sub), heard by the relay itself. A client
// whose primary died finds the new one on its own (each reconnection asks the Sentinels), but one whose primary was
// demoted while alive, or went silent with its connections open, would stay where it is: this drops such a
// connection the moment the Sentinels name another primary, and the client's reconnection then asks them again.
//
// ioredis has the same idea built in (`failoverDetector`), but it drops the connection whatever the client is doing:
// when the announcement arrives while the client is between asking a Sentinel and connecting, ioredis ends the client
// for good ("Connection is closed" on every command, with no reconnection). Here a client is touched only while it
// is connected; one that is reconnecting asks the Sentinels anyway, and ioredis checks the role of whatever node it
// reaches.
import { Redis } from 'ioredis';
import type { RedisSentinelTarget } from './redis-target.ts';

export const SWITCH_MASTER = '+switch-master';

export interface SentinelFailovers {
  /** Drops `client`'s connection at each failover of the target's group, until the client ends. */
  follow(client: Redis): void;
  close(): void;
}

/** `<name> <old ip> <old port> <new ip> <new port>`, as Sentinel publishes it; null for anything else. */
export function parseSwitchMaster(message: string): { name: string; host: string; port: number } | null {
  const parts = message.split(' ');
  if (parts.length !== 5) return null;
  const port = Number(parts[4]);
  return Number.isInteger(port) && port > 0 ? { name: parts[0]!, host: parts[3]!, port } : null;
}

/** Whether the client is connected to `host:port` (as the Sentinels name it), or may be to another node. */
function connectedTo(client: Redis, host: string, port: number): boolean {
  return client.stream?.remoteAddress === host && client.stream.remotePort === port;
}

export function followSentinelFailovers(target: RedisSentinelTarget): SentinelFailovers {
  const followed = new Set<Redis>();
  const onSwitch = (channel: string, message: string) => {
    const switched = channel === SWITCH_MASTER ? parseSwitchMaster(message) : null;
    if (switched === null || switched.name !== target.masterName) return;
    for (const client of followed) {
      // Each Sentinel announces the switch: a client already on the new primary stays there.
      const connected = client.status === 'ready' || client.status === 'connect';
      if (connected && !connectedTo(client, switched.host, switched.port)) client.disconnect(true);
    }
  };
  // Every Sentinel listed, so that the announcement is heard while some of them are down.
  const listeners = target.sentinels.map(({ host, port }) => {
    const listener = new Redis({
      host,
      port,
      ...(target.sentinelPassword === null ? {} : { password: target.sentinelPassword }),
      ...(target.sentinelTls ? { tls: {} } : {}),
      enableReadyCheck: false,
      disableClientInfo: true,
      connectTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      // Subscribed again on each connection by us (as the event bus does): ioredis's own re-subscription is a
      // promise nobody awaits.
      autoResubscribe: false,
    });
    // A Sentinel that is down is the others' to cover; this one reconnects by itself.
    listener.on('error', () => {});
    listener.on('ready', () => void listener.subscribe(SWITCH_MASTER).catch(() => {}));
    listener.on('message', onSwitch);
    return listener;
  });
  const close = () => {
    followed.clear();
    for (const listener of listeners) listener.disconnect();
  };
  return {
    follow(client) {
      followed.add(client);
      client.once('end', () => {
        followed.delete(client);
        if (followed.size === 0) close();
      });
    },
    close,
  };
}
