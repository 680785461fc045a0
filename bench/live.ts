// `npm run bench:live`: live delivery, measured with the relay (built JavaScript, `node dist-server/server.js`) and the
// upstream simulator in separate processes (the simulator runs in this one, behind a counter of the upstream reads of
// each conversation). Three parts:
//   (a) delivery delay, from the upstream storing a team member's message to a stream client receiving it: with the
//       simulator's signed events (a relay with UPSTREAM_EVENTS_SECRET) and with polling only (a relay without);
//   (b) 50,000 concurrent idle streams on one instance: resident memory added per stream, the relay's CPU while they
//       idle (once their watches read at their steady rate), heartbeats delivered (held by child processes on raw
//       sockets, bench/live/stream-holders.ts; as many as the relay's open-files limit allows, which it prints, and
//       when that is fewer, the CPU scaled to the count asked for);
//   (c) upstream reads per watched conversation per minute, streams against the panel's polling as it was
//       (src/frame/model/poll-cadence.ts) in the same states: open and idle, closed, two tabs, just after writing.
// Goals: with events p50 ≤ 100 ms and p99 ≤ 500 ms; 50,000 idle streams at most 10 KB each and under 5 % of a core;
// never more reads than polling. Exits 1 when a goal is missed. Bounded: about ten minutes.
//
// Environment: BENCH_STREAMS (default 50000), BENCH_PARTS (default `delay,idle,reads`: the parts to run), BENCH_IDLE_SECONDS (default 150), BENCH_READS_SECONDS (default 60),
// BENCH_SAMPLES (default 60), BENCH_CPU_PROF=DIR (write the CPU profile of the relay holding the streams there). Run
// `npm run build` first (the script does).
import { existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { freePort } from '../tools/free-port.ts';
import { measureDeliveryDelay } from './live/delivery-delay.ts';
import { measureIdleStreams } from './live/idle-streams.ts';
import { conversationCreator } from './live/relay-client.ts';
import { serverJs } from './live/relay-process.ts';
import { createReport } from './live/report.ts';
import { measureUpstreamReads } from './live/upstream-reads.ts';
import { startUpstreamWithEvents } from './live/upstream-with-events.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 50_000);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'delay,idle,reads').split(','));
// A whole safety-net cycle of the idle watches (120-144 s after they open), so their reads are all counted once.
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 150);
const READS_SECONDS = Number(process.env.BENCH_READS_SECONDS ?? 60);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
if (!existsSync(serverJs)) {
  console.error('dist-server/server.js is missing: run `npm run build` first.');
  process.exit(1);
}

const { upstream, relays, eventsPort: eventsRelayPort, eventsSecret } = await startUpstreamWithEvents(PROFILE_DIR);
const createConversation = conversationCreator(upstream.newestConversationId);
const report = createReport();

report.say(`# Live delivery bench (${new Date().toISOString()})`);
report.say();
report.say(
  `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB, Node.js ${process.version}.`,
);

// Room for every idle stream of part (b): the default MAX_STREAMS is below the bench's count. The longest lifetime,
// so that none of them ends while they are measured: opening tens of thousands on a loaded machine takes minutes,
// and with the default (240-360 s) the first streams ended with their reconnect hints during the idle window, which
// then measured fewer streams than it said (the open descriptors and each half's heartbeats showed it).
const withEvents = await relays.start(
  'relay-events',
  eventsRelayPort,
  { UPSTREAM_EVENTS_SECRET: eventsSecret, MAX_STREAMS: String(STREAMS + 1000), STREAM_LIFETIME_SECONDS: '3600' },
  true,
);
const pollingOnly = await relays.start('relay-polling', await freePort());

if (PARTS.has('delay'))
  await measureDeliveryDelay(report, { upstream, createConversation, withEvents, pollingOnly, samples: SAMPLES });
if (PARTS.has('idle'))
  await measureIdleStreams(report, { relay: withEvents, upstream, streamCount: STREAMS, idleSeconds: IDLE_SECONDS });
if (PARTS.has('reads'))
  await measureUpstreamReads(report, {
    upstream,
    createConversation,
    withEvents,
    pollingOnly,
    readsSeconds: READS_SECONDS,
  });

report.sayGoals();
upstream.close();
await relays.stop();
process.exit(report.allMet() ? 0 : 1);
