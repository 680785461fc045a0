// Part (b) of the live bench: many idle streams held on one relay, for the memory each adds, the relay's CPU while
// they idle, the heartbeats they receive and the upstream reads their watches make.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CountingUpstream } from './counting-upstream.ts';
import { pool } from './pool.ts';
import { createHandle } from './relay-client.ts';
import { cpuMs, type Relay, rssKb } from './relay-process.ts';
import type { Report } from './report.ts';
import { openStream } from './stream-client.ts';

export async function measureIdleStreams(
  report: Report,
  bench: { relay: Relay; upstream: CountingUpstream; streamCount: number; idleSeconds: number },
): Promise<void> {
  const { relay, upstream, streamCount, idleSeconds } = bench;
  const { say } = report;
  say();
  say(
    `## (b) ${streamCount.toLocaleString('en')} idle streams on one instance (the relay with events, so idle watches read every 120 s)`,
  );
  say();
  const handles = await pool(streamCount, 32, () => createHandle(relay));
  await sleep(5000);
  const rssBefore = rssKb(relay.pid);
  const streams = await pool(streamCount, 200, async (index) => {
    const stream = openStream(relay, handles[index]!);
    await stream.opened;
    return stream;
  });
  // Let the catch-up reads and first scheduled reads pass before measuring the idle state.
  await sleep(10_000);
  const rssAfter = rssKb(relay.pid);
  const heartbeatsBefore = streams.reduce((sum, stream) => sum + stream.heartbeats, 0);
  const cpuBefore = cpuMs(relay.pid);
  const readsBefore = [...upstream.readsOf.values()].reduce((a, b) => a + b, 0);
  await sleep(idleSeconds * 1000);
  const cpuShare = (cpuMs(relay.pid) - cpuBefore) / (idleSeconds * 1000);
  const heartbeats = streams.reduce((sum, stream) => sum + stream.heartbeats, 0) - heartbeatsBefore;
  const idleReads = [...upstream.readsOf.values()].reduce((a, b) => a + b, 0) - readsBefore;
  const perStreamKb = (rssAfter - rssBefore) / streamCount;
  say(
    '| streams | relay RSS before | after | added per stream | relay CPU while idle | heartbeats per stream per minute | upstream reads per second |',
  );
  say('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  say(
    `| ${streamCount} | ${(rssBefore / 1024).toFixed(0)} MB | ${(rssAfter / 1024).toFixed(0)} MB | ${perStreamKb.toFixed(1)} KB | ${(cpuShare * 100).toFixed(1)} % of a core | ${((heartbeats / streamCount) * (60 / idleSeconds)).toFixed(2)} | ${(idleReads / idleSeconds).toFixed(0)} |`,
  );
  report.goal('at most 20 KB per idle stream', perStreamKb <= 20);
  report.goal('under 5 % of a core while idle', cpuShare < 0.05);
  streams.forEach((stream) => {
    stream.close();
  });
  await sleep(2000);
}
