// Where an idle stream's memory goes: the relay (built, its own process) holds N idle streams, and the heap snapshots
// it writes before and after are compared object by object (V8's own count of each kind of object and its bytes).
// Resident memory per stream is `npm run bench:live`'s figure; this says which objects make it up, so the next cut is
// chosen by evidence. Usage: `npm run build && tsx bench/live-heap.ts [N=2000] [TOP=40]`.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pool } from './live/pool.ts';
import { createHandle } from './live/relay-client.ts';
import { rssKb } from './live/relay-process.ts';
import { startUpstreamWithEvents } from './live/upstream-with-events.ts';
import { startStreamHolders } from './live/stream-holders.ts';

const STREAMS = Number(process.argv[2] ?? 2000);
const TOP = Number(process.argv[3] ?? 40);

const snapshotDir = mkdtempSync(join(tmpdir(), 'live-heap-'));
const { upstream, relays, eventsPort: port, eventsSecret } = await startUpstreamWithEvents(undefined);
const relay = await relays.start('relay', port, {
  UPSTREAM_EVENTS_SECRET: eventsSecret,
  MAX_STREAMS: String(STREAMS + 1000),
  NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshotDir}`,
});

async function snapshot(): Promise<Map<string, { count: number; bytes: number }>> {
  const before = new Set(readdirSync(snapshotDir));
  process.kill(relay.pid, 'SIGUSR2');
  // A snapshot of a large heap takes seconds to write; a relay that writes none within a minute has failed.
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    await sleep(500);
    const file = readdirSync(snapshotDir).find((name) => !before.has(name) && name.endsWith('.heapsnapshot'));
    if (file === undefined) continue;
    try {
      return summarise(JSON.parse(readFileSync(join(snapshotDir, file), 'utf8')));
    } catch {
      // Still being written.
    }
  }
  throw new Error(`the relay wrote no heap snapshot in ${snapshotDir} within a minute`);
}

interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/**
 * Objects by kind and by what holds them: V8's type and the constructor's name, and the first object found holding
 * each (its kind and the property it is held by), so that arrays and strings are told apart by their owner.
 */
function summarise({ snapshot, nodes, edges, strings }: Snapshot) {
  const fields = snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const edgeCountAt = fields.indexOf('edge_count');
  const edgeFields = snapshot.meta.edge_fields;
  const edgeWidth = edgeFields.length;
  const edgeTypeAt = edgeFields.indexOf('type');
  const edgeNameAt = edgeFields.indexOf('name_or_index');
  const edgeToAt = edgeFields.indexOf('to_node');
  const edgeTypes = snapshot.meta.edge_types[0];
  const types = snapshot.meta.node_types[0];
  const kindOf = (at: number) => {
    const type = types[nodes[at + typeAt]!]!;
    const named = type === 'object' || type === 'native' || type === 'closure';
    return `${type}${named ? ` ${strings[nodes[at + nameAt]!]!.slice(0, 40)}` : ''}`;
  };
  const owner = new Map<number, string>();
  let edge = 0;
  for (let at = 0; at < nodes.length; at += width) {
    const count = nodes[at + edgeCountAt]!;
    for (let index = 0; index < count; index++, edge += edgeWidth) {
      const edgeType = edgeTypes[edges[edge + edgeTypeAt]!]!;
      if (edgeType === 'weak' || edgeType === 'shortcut') continue;
      const to = edges[edge + edgeToAt]!;
      if (owner.has(to)) continue;
      const name =
        edgeType === 'element' || edgeType === 'hidden' ? `[${edgeType}]` : strings[edges[edge + edgeNameAt]!];
      owner.set(to, `${kindOf(at)} .${String(name).slice(0, 30)}`);
    }
  }
  const kinds = new Map<string, { count: number; bytes: number }>();
  for (let at = 0; at < nodes.length; at += width) {
    const key = `${kindOf(at)} ← ${owner.get(at) ?? 'root'}`;
    const kind = kinds.get(key) ?? { count: 0, bytes: 0 };
    kind.count += 1;
    kind.bytes += nodes[at + sizeAt]!;
    kinds.set(key, kind);
  }
  return kinds;
}

const handles = await pool(STREAMS, 32, () => createHandle(relay));
await sleep(3000);
const rssBefore = rssKb(relay.pid);
const before = await snapshot();
const holders = await startStreamHolders(relay, handles);
upstream.simulator.writeAs(upstream.newestConversationId(), 'agent', 'Thanks for waiting.');
await sleep(5000);
const rssAfter = rssKb(relay.pid);
const after = await snapshot();

const rows = [...after]
  .map(([key, kind]) => {
    const old = before.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: (kind.count - old.count) / STREAMS, bytes: (kind.bytes - old.bytes) / STREAMS };
  })
  .sort((a, b) => b.bytes - a.bytes);
const heapPerStream = rows.reduce((sum, row) => sum + row.bytes, 0);
console.log(
  `${STREAMS} streams: resident ${((rssAfter - rssBefore) / STREAMS).toFixed(2)} KB per stream, heap objects ${(heapPerStream / 1024).toFixed(2)} KB per stream`,
);
console.log('| objects | per stream | bytes per stream |');
console.log('| --- | ---: | ---: |');
for (const row of rows.slice(0, TOP)) console.log(`| ${row.key} | ${row.count.toFixed(2)} | ${row.bytes.toFixed(0)} |`);
holders.close();
upstream.close();
await relays.stop();
process.exit(0);
