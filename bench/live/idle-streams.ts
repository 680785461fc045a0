// Part (b) of the live bench: many idle streams held on one relay, for the memory each adds, the relay's CPU while
// they idle, the heartbeats they receive and the upstream reads their watches make.
import { setTimeout as sleep } from 'node:timers/promises';
import { SAFETY_NET_MS } from '../../src/relay/live/cadence.ts';
import type { CountingUpstream } from './counting-upstream.ts';
import { pool } from './pool.ts';
import { createHandle } from './relay-client.ts';
import { cpuMs, cpuSplitMs, openDescriptors, openFilesLimit, type Relay, rssKb } from './relay-process.ts';
import type { Report } from './report.ts';
import { STREAMS_PER_HOLDER, startStreamHolders } from './stream-holders.ts';

/** Descriptors the relay needs beside its streams: listeners, upstream connections, files, the event loop's own. */
const SPARE_DESCRIPTORS = 500;

export async function measureIdleStreams(
  report: Report,
  bench: { relay: Relay; upstream: CountingUpstream; streamCount: number; idleSeconds: number },
): Promise<void> {
  const { relay, upstream, streamCount, idleSeconds } = bench;
  const { say } = report;
  // One descriptor per stream: an instance cannot hold more streams than its open-files limit allows, and the bench
  // says so rather than measuring fewer streams under the same heading.
  const limit = openFilesLimit(relay.pid);
  const held = Math.min(streamCount, limit - SPARE_DESCRIPTORS);
  say();
  say(
    `## (b) ${held.toLocaleString('en')} idle streams on one instance (the relay with events, so idle watches read only as a safety net)`,
  );
  say();
  say(`The relay's open-files limit (\`ulimit -n\`): ${limit.toLocaleString('en')} descriptors.`);
  if (held < streamCount)
    say(
      `${streamCount.toLocaleString('en')} streams need ${(streamCount + SPARE_DESCRIPTORS).toLocaleString('en')}, which this machine does not let a process have, so ${held.toLocaleString('en')} were held. See docs/deploying.md, "Many idle streams".`,
    );
  const handles = await pool(held, 32, () => createHandle(relay));
  await sleep(5000);
  const rssBefore = rssKb(relay.pid);
  // In two halves: the second half's memory is what one more stream costs, without what the first burst of opens
  // grew once (V8's young generation, the upstream client's pools), which a smaller count would spread over fewer.
  const half = Math.floor(held / 2);
  const first = await startStreamHolders(relay, handles.slice(0, half));
  await sleep(10_000);
  const rssHalf = rssKb(relay.pid);
  const second = await startStreamHolders(relay, handles.slice(half), 2 + Math.ceil(half / STREAMS_PER_HOLDER));
  const holders = {
    halves: async () => [await first.heartbeats(), await second.heartbeats()] as const,
    heartbeats: async () => (await first.heartbeats()) + (await second.heartbeats()),
    close: () => {
      first.close();
      second.close();
    },
  };
  // A service event, so the relay knows the service's events arrive (its watches then read only as a safety net), as
  // after part (a) in a short run: creating tens of thousands of conversations outlasts the relay's memory of events.
  upstream.simulator.writeAs(upstream.newestConversationId(), 'agent', 'Thanks for waiting.');
  // Let the catch-up reads pass before measuring memory.
  await sleep(10_000);
  const rssAfter = rssKb(relay.pid);
  // The idle window starts once every watch has passed its shortest safety-net period: from then on the watches read
  // at their steady rate (each first read lands anywhere in the stretched period), which the window then measures.
  await sleep(SAFETY_NET_MS);
  const halvesBefore = await holders.halves();
  const heartbeatsBefore = halvesBefore[0] + halvesBefore[1];
  const cpuBefore = cpuMs(relay.pid);
  const systemBefore = cpuSplitMs(relay.pid).system;
  const readsBefore = [...upstream.readsOf.values()].reduce((a, b) => a + b, 0);
  await sleep(idleSeconds * 1000);
  const cpuShare = (cpuMs(relay.pid) - cpuBefore) / (idleSeconds * 1000);
  const systemShare = (cpuSplitMs(relay.pid).system - systemBefore) / (idleSeconds * 1000);
  const descriptors = openDescriptors(relay.pid);
  const halvesAfter = await holders.halves();
  const heartbeats = halvesAfter[0] + halvesAfter[1] - heartbeatsBefore;
  const idleReads = [...upstream.readsOf.values()].reduce((a, b) => a + b, 0) - readsBefore;
  const perStreamKb = (rssAfter - rssBefore) / held;
  const marginalKb = (rssAfter - rssHalf) / (held - half);
  say(
    '| streams | relay RSS before | after | added per stream | added per stream, second half | relay CPU while idle | heartbeats per stream per minute | upstream reads per second |',
  );
  say('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  say(
    `| ${held} | ${(rssBefore / 1024).toFixed(0)} MB | ${(rssAfter / 1024).toFixed(0)} MB | ${perStreamKb.toFixed(1)} KB | ${marginalKb.toFixed(1)} KB | ${(cpuShare * 100).toFixed(1)} % of a core | ${((heartbeats / held) * (60 / idleSeconds)).toFixed(2)} | ${(idleReads / idleSeconds).toFixed(0)} |`,
  );
  const perMinute = (count: number, streams: number) => ((count / streams) * (60 / idleSeconds)).toFixed(2);
  say();
  say(
    `While idle: ${descriptors.toLocaleString('en')} descriptors open in the relay; ${(systemShare * 100).toFixed(1)} % of a core in the kernel (of the CPU above); heartbeats per stream per minute, first half ${perMinute(halvesAfter[0] - halvesBefore[0], half)}, second half ${perMinute(halvesAfter[1] - halvesBefore[1], held - half)}.`,
  );
  report.goal(`${streamCount.toLocaleString('en')} idle streams held on one instance`, held === streamCount);
  // Fewer streams than asked for: the CPU scaled to the count asked for, as if all of it grew with the streams. An upper
  // bound: the heartbeats grow with them, but the safety-net reads stay within the instance's budget.
  const scaledShare = (cpuShare * streamCount) / held;
  if (held < streamCount)
    say(
      `Scaled to ${streamCount.toLocaleString('en')} streams (all of the CPU taken as growing with the streams, an upper bound since the safety-net reads do not): ${(scaledShare * 100).toFixed(1)} % of a core.`,
    );
  report.goal('at most 10 KB per idle stream', perStreamKb <= 10);
  report.goal(
    `under 5 % of a core while idle${held < streamCount ? `, scaled to ${streamCount.toLocaleString('en')}` : ''}`,
    scaledShare < 0.05,
  );
  holders.close();
  await sleep(2000);
}
