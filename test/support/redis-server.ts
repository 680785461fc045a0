// A real redis-server for tests, on a free loopback port; stopped (and startable again on the same port, for "Redis
// went away and came back") by the test. Without persistence by default, so a restart comes back empty (what a
// server without persistence, a failover to an empty replica or a wiped cache does); `persistent` keeps an
// append-only file synced on every write, as the README asks of production, so a restart, even after SIGKILL,
// comes back with everything.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';

export const REDIS_SERVER_PATH = process.env.REDIS_SERVER_PATH || '/usr/bin/redis-server';

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGKILL: as abrupt as a crash); its port stays known. */
  stop(): Promise<void>;
  /** Starts it again on the same port: empty, or with its data when `persistent`. */
  start(): Promise<void>;
  /** Sends a signal to the running server: SIGSTOP hangs it (connections stay open, nothing answers), SIGCONT resumes. */
  signal(signal: NodeJS.Signals): void;
  /** A client of its own, for assertions; closed by close(). */
  client: Redis;
  close(): Promise<void>;
}

export async function startTestRedis({ persistent = false }: { persistent?: boolean } = {}): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  // A directory of its own either way: a test may turn persistence on with CONFIG SET, which writes into it.
  const dataDir = mkdtempSync(join(tmpdir(), 'pwc-redis-'));
  const storage = [
    '--dir',
    dataDir,
    ...(persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
  ];

  async function start(): Promise<void> {
    child = spawn(
      REDIS_SERVER_PATH,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...storage, '--protected-mode', 'yes'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('redis-server did not start within 10 s')), 10_000);
      child!.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child!.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}`));
      });
    });
  }

  async function stop(): Promise<void> {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  }

  await start();
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: false, maxRetriesPerRequest: 1 });
  // The test stops the server on purpose; the client reconnects by itself.
  client.on('error', () => {});
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    signal: (signal) => void child?.kill(signal),
    client,
    close: async () => {
      client.disconnect();
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
