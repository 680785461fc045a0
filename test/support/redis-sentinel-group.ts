// A Redis primary, one replica and three real Sentinels on loopback ports, as an operator runs them for failover:
// passwords on the data nodes and on the Sentinels, quorum 2. Sentinel's timings are shortened (a node is "down" after
// DOWN_AFTER_MS without an answer) so that a failover takes seconds, not the half minute of its defaults. Debian's
// `redis-sentinel` is a link to the redis-server binary, which runs as a Sentinel when called by that name. With
// `tls`, every node and Sentinel listens on TLS only (a throwaway certificate for 127.0.0.1), and they talk to each
// other over it too.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { writeSelfSignedCertificate } from '../../tools/self-signed-certificate.ts';
import { freePorts } from './free-port.ts';
import { REDIS_SERVER_PATH } from './redis-server.ts';

export const REDIS_SENTINEL_PATH = process.env.REDIS_SENTINEL_PATH || '/usr/bin/redis-sentinel';

export const MASTER_NAME = 'pwc-test';
const DOWN_AFTER_MS = 1000;
const FAILOVER_TIMEOUT_MS = 5000;

export interface SentinelGroup {
  /** `REDIS_SENTINELS` for a relay: the three Sentinels' `host:port`, comma-separated. */
  sentinelList: string;
  masterName: string;
  password: string;
  sentinelPassword: string;
  /** The data nodes' ports, the first one the primary at start. */
  nodePorts: number[];
  /** The port the Sentinels now name as primary. */
  primaryPort(): Promise<number>;
  /** SIGKILL to the node on `port`: as abrupt as a lost machine. */
  kill(port: number): Promise<void>;
  /** A signal to the node on `port`: SIGSTOP hangs it with its connections open (a machine gone silent), SIGCONT resumes. */
  signal(port: number, signal: NodeJS.Signals): void;
  /** A client of the data node on `port`, for assertions. */
  node(port: number): Redis;
  /** With `tls`: the certificate every node and Sentinel presents, to be trusted by clients (NODE_EXTRA_CA_CERTS). */
  certificatePath: string | null;
  /**
   * Listens to a Sentinel for `+switch-master`, the moment the new primary's address is known; resolves once
   * subscribed, with `switched`, which resolves with the time (Date.now) of the switch and the new primary's port.
   */
  watchForSwitch(): Promise<{ switched: Promise<{ at: number; port: number }> }>;
  /** A client of one Sentinel, for SENTINEL commands. */
  sentinel: Redis;
  /** Everything the processes printed, for a failing test's message. */
  output(): string;
  close(): Promise<void>;
}

interface Started {
  child: ChildProcess;
  exited: Promise<void>;
}

export async function startSentinelGroup({ tls = false }: { tls?: boolean } = {}): Promise<SentinelGroup> {
  const dir = mkdtempSync(join(tmpdir(), 'pwc-sentinel-'));
  const certificatePath = tls ? join(dir, 'certificate.pem') : null;
  const keyPath = join(dir, 'key.pem');
  if (certificatePath !== null) writeSelfSignedCertificate('IP:127.0.0.1', keyPath, certificatePath);
  /** The same files as arguments (data nodes) or lines (Sentinels' configuration): TLS only, no plain port. */
  const tlsSettings = (port: number): string[][] =>
    certificatePath === null
      ? [['port', String(port)]]
      : [
          ['port', '0'],
          ['tls-port', String(port)],
          ['tls-cert-file', certificatePath],
          ['tls-key-file', keyPath],
          ['tls-ca-cert-file', certificatePath],
          ['tls-auth-clients', 'no'],
          ['tls-replication', 'yes'],
        ];
  const password = `data-${Math.random().toString(36).slice(2)}`;
  const sentinelPassword = `sentinel-${Math.random().toString(36).slice(2)}`;
  const processes = new Map<number, Started>();
  const clients: Redis[] = [];
  let output = '';

  function run(port: number, command: string, args: string[], readyLine: string): Promise<void> {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    processes.set(port, { child, exited });
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${command} on ${port} did not start within 10 s`)), 10_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (chunk.toString().includes(readyLine)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${command} on ${port} exited with ${code}:\n${output}`));
      });
    });
  }

  const dataNode = (port: number, replicaOf: number | null) =>
    run(
      port,
      REDIS_SERVER_PATH,
      [
        ...tlsSettings(port).flatMap(([name, value]) => [`--${name}`, value!]),
        '--bind',
        '127.0.0.1',
        '--dir',
        mkdtempSync(join(dir, `node-${port}-`)),
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--requirepass',
        password,
        // The primary after a failover is one of these: each must authenticate to whichever it then follows.
        '--masterauth',
        password,
        ...(replicaOf === null ? [] : ['--replicaof', '127.0.0.1', String(replicaOf)]),
      ],
      'Ready to accept connections',
    );

  const sentinelNode = (port: number, primary: number) => {
    // Sentinel rewrites its configuration file as it learns the group: one file each, in the group's directory.
    const file = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      file,
      [
        ...tlsSettings(port).map((line) => line.join(' ')),
        'bind 127.0.0.1',
        `dir ${dir}`,
        `requirepass ${sentinelPassword}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary} 2`,
        `sentinel auth-pass ${MASTER_NAME} ${password}`,
        `sentinel down-after-milliseconds ${MASTER_NAME} ${DOWN_AFTER_MS}`,
        `sentinel failover-timeout ${MASTER_NAME} ${FAILOVER_TIMEOUT_MS}`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        '',
      ].join('\n'),
    );
    return run(port, REDIS_SENTINEL_PATH, [file], '+monitor master');
  };

  const connect = (port: number, auth: string) => {
    const client = new Redis({
      host: '127.0.0.1',
      port,
      password: auth,
      maxRetriesPerRequest: 1,
      ...(certificatePath === null ? {} : { tls: { ca: readFileSync(certificatePath) } }),
    });
    client.on('error', () => {});
    clients.push(client);
    return client;
  };

  async function close() {
    for (const client of clients) client.disconnect();
    await Promise.all(
      [...processes.values()].map(({ child, exited }) => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        return exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  }

  try {
    // Five servers start together: five different ports (one port given twice failed a Sentinel's start).
    const ports = await freePorts(5);
    const nodePorts = ports.slice(0, 2);
    const sentinelPorts = ports.slice(2);
    await dataNode(nodePorts[0]!, null);
    await dataNode(nodePorts[1]!, nodePorts[0]!);
    await Promise.all(sentinelPorts.map((port) => sentinelNode(port, nodePorts[0]!)));
    const sentinel = connect(sentinelPorts[0]!, sentinelPassword);
    // Ready for a failover once the replica is in sync and every Sentinel knows the replica and the two others.
    const replica = connect(nodePorts[1]!, password);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const replication = await replica.info('replication');
      const views = await Promise.all(
        sentinelPorts.map(async (port, index) => {
          const client = index === 0 ? sentinel : connect(port, sentinelPassword);
          const fields = (await client.call('SENTINEL', 'MASTER', MASTER_NAME)) as string[];
          if (index !== 0) client.disconnect();
          const field = (name: string) => fields[fields.indexOf(name) + 1];
          return field('num-slaves') === '1' && field('num-other-sentinels') === '2';
        }),
      );
      if (replication.includes('master_link_status:up') && views.every(Boolean)) break;
      if (Date.now() > deadline) throw new Error(`the Sentinel group did not settle within 20 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    replica.disconnect();

    return {
      sentinelList: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
      masterName: MASTER_NAME,
      password,
      sentinelPassword,
      nodePorts,
      sentinel,
      primaryPort: async () => {
        const [, port] = (await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as string[];
        return Number(port);
      },
      certificatePath,
      node: (port) => connect(port, password),
      signal: (port, signal) => void processes.get(port)?.child.kill(signal),
      kill: async (port) => {
        const node = processes.get(port);
        if (node === undefined || node.child.exitCode !== null) return;
        node.child.kill('SIGKILL');
        await node.exited;
      },
      watchForSwitch: async () => {
        const listener = connect(sentinelPorts[1]!, sentinelPassword);
        const switched = new Promise<{ at: number; port: number }>((resolve) => {
          listener.once('message', (_channel: string, message: string) => {
            const at = Date.now();
            listener.disconnect();
            // "<name> <old ip> <old port> <new ip> <new port>"
            resolve({ at, port: Number(message.split(' ')[4]) });
          });
        });
        await listener.subscribe('+switch-master');
        return { switched };
      },
      output: () => output,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
