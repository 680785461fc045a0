// The relays under test, each the built server in its own process as it runs deployed, so that its memory and CPU can
// be read from outside, apart from this process's own.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const serverJs = new URL('../../dist-server/server.js', import.meta.url).pathname;

export interface Relay {
  name: string;
  url: string;
  pid: number;
  child: ChildProcess;
}

export interface RelayProcesses {
  /** Starts a relay on `port`, resolved once it listens; `profile` writes its CPU profile when there is a directory. */
  start(name: string, port: number, extra?: Record<string, string>, profile?: boolean): Promise<Relay>;
  /** Stops every relay started. */
  stop(): Promise<void>;
}

/** Relays reading `upstream`, each logging to its own file; any still running are killed when this process exits. */
export function relayProcesses(options: {
  upstream: { url: string; username: string; password: string };
  profileDir: string | undefined;
}): RelayProcesses {
  const { upstream, profileDir } = options;
  const logDir = mkdtempSync(join(tmpdir(), 'bench-live-'));
  const children: ChildProcess[] = [];
  process.on('exit', () =>
    children.forEach((child) => {
      if (child.exitCode === null) child.kill('SIGKILL');
    }),
  );

  return {
    async start(name, port, extra = {}, profile = false) {
      const logPath = join(logDir, `${name}.log`);
      const out = openSync(logPath, 'w');
      const child = spawn(
        process.execPath,
        [...(profile && profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), serverJs],
        {
          env: {
            ...process.env,
            NODE_ENV: 'production',
            HOST: '127.0.0.1',
            PORT: String(port),
            PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
            UPSTREAM_URL: upstream.url,
            UPSTREAM_USERNAME: upstream.username,
            UPSTREAM_PASSWORD: upstream.password,
            HANDLE_SECRET: randomBytes(32).toString('base64'),
            REQUESTS_PER_MINUTE_PER_IP: '1000000',
            CONVERSATIONS_PER_HOUR_PER_IP: '1000000',
            ...extra,
          },
          stdio: ['ignore', out, out],
        },
      );
      children.push(child);
      for (let waited = 0; waited < 20_000; waited += 50) {
        const match = /Relay listening on (http:\/\/[^\s"]+)/.exec(readFileSync(logPath, 'utf8'));
        if (match) return { name, url: match[1]!, pid: child.pid!, child };
        if (child.exitCode !== null) break;
        await sleep(50);
      }
      throw new Error(`${name} did not start; see ${logPath}`);
    },
    async stop() {
      // SIGTERM, so that a relay run with --cpu-prof writes its profile as it exits: after its graceful stop, which
      // with many streams open takes longer than a fixed pause (the profile was then lost to this process's exit).
      const exited = children.map((child) =>
        child.exitCode !== null
          ? Promise.resolve()
          : new Promise<void>((resolve) => child.once('exit', () => resolve())),
      );
      children.forEach((child) => {
        child.kill(profileDir ? 'SIGTERM' : 'SIGKILL');
      });
      if (profileDir) await Promise.race([Promise.all(exited), sleep(60_000)]);
    },
  };
}

/** CPU time, user and system, that process `pid` has used so far. */
export function cpuMs(pid: number): number {
  const { user, system } = cpuSplitMs(pid);
  return user + system;
}

/** The same, apart: system time is the kernel's work for the process (its sockets' writes among it). */
export function cpuSplitMs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: (Number(fields[11]) * 1000) / 100, system: (Number(fields[12]) * 1000) / 100 };
}

/** Resident memory of process `pid`. */
export function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

/** Descriptors process `pid` holds open now (its sockets among them). */
export function openDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The soft limit on open files of process `pid`: the most sockets it can hold. */
export function openFilesLimit(pid: number): number {
  return Number(/Max open files\s+(\d+)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))![1]);
}
