// What a server process holds, read from Linux's /proc: its resident memory, and which of its accepted connections
// it still has open. A client that never reads cannot tell when the server closed its side (the close waits behind
// the data the client never took), so tests of closing look at the server process itself.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Resident memory of a process, in bytes. */
export function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/**
 * The client ports of the connections accepted on `port` that process `pid` still holds a descriptor for: a
 * connection the server has closed or destroyed is no longer its own, whatever the kernel still does with it.
 */
export function heldClientPorts(pid: number, port: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match !== null) inodes.add(match[1]!);
    } catch {
      // closed while listed
    }
  }
  const held = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const localPort = parseInt(fields[1]!.split(':')[1]!, 16);
      const remotePort = parseInt(fields[2]!.split(':')[1]!, 16);
      // 0A: listening, not a connection.
      if (localPort === port && fields[3] !== '0A' && inodes.has(fields[9]!)) held.add(remotePort);
    }
  }
  return held;
}
