// `npm run bench:live`: live delivery, measured with the relay (built JavaScript, `node dist-server/server.js`) and the
// upstream simulator in separate processes (the simulator runs in this one, behind a counter of the upstream reads of
// each conversation). Three parts:
//   (a) delivery delay, from the upstream storing a team member's message to a stream client receiving it: with the
//       simulator's signed events (a relay with UPSTREAM_EVENTS_SECRET) and with polling only (a relay without);
//   (b) 10,000 concurrent idle streams on one instance: resident memory added per stream, the relay's CPU while they
//       idle, heartbeats delivered;
//   (c) upstream reads per watched conversation per minute, streams against the panel's polling as it was
//       (src/frame/model/poll-cadence.ts) in the same states: open and idle, closed, two tabs, just after writing.
// Goals (issue 20): with events p50 ≤ 100 ms and p99 ≤ 500 ms; at most 20 KB and under 5 % of a core for 10,000
// idle streams; never more reads than polling. Exits 1 when a goal is missed. Bounded: about six minutes.
//
// Environment: BENCH_STREAMS (default 10000), BENCH_IDLE_SECONDS (default 150), BENCH_READS_SECONDS (default 60),
// BENCH_SAMPLES (default 60), BENCH_CPU_PROF=DIR (write the CPU profile of the relay holding the streams there). Run
// `npm run build` first (the script does).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { freePort } from '../tools/free-port.ts';
import { startCountingUpstream } from './live/counting-upstream.ts';
import { measureDeliveryDelay } from './live/delivery-delay.ts';
import { measureIdleStreams } from './live/idle-streams.ts';
import { conversationCreator } from './live/relay-client.ts';
import { relayProcesses, serverJs } from './live/relay-process.ts';
import { createReport } from './live/report.ts';
import { measureUpstreamReads } from './live/upstream-reads.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
// A whole safety-net cycle of the idle watches (120-144 s after they open), so their reads are all counted once.
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 150);
const READS_SECONDS = Number(process.env.BENCH_READS_SECONDS ?? 60);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
if (!existsSync(serverJs)) {
  console.error('dist-server/server.js is missing: run `npm run build` first.');
  process.exit(1);
}

// The relay with events is named in the simulator's events target, so its port is chosen before either starts.
const eventsSecret = randomBytes(32).toString('base64');
const eventsRelayPort = await freePort();
const upstream = await startCountingUpstream({
  url: `http://127.0.0.1:${eventsRelayPort}/v1/upstream-events`,
  secret: eventsSecret,
});
const relays = relayProcesses({
  upstream: {
    url: upstream.url,
    username: upstream.simulator.seed.username,
    password: upstream.simulator.seed.password,
  },
  profileDir: PROFILE_DIR,
});
const createConversation = conversationCreator(upstream.newestConversationId);
const report = createReport();

report.say(`# Live delivery bench (${new Date().toISOString()})`);
report.say();
report.say(
  `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB, Node.js ${process.version}.`,
);

const withEvents = await relays.start('relay-events', eventsRelayPort, { UPSTREAM_EVENTS_SECRET: eventsSecret }, true);
const pollingOnly = await relays.start('relay-polling', await freePort());

await measureDeliveryDelay(report, { upstream, createConversation, withEvents, pollingOnly, samples: SAMPLES });
await measureIdleStreams(report, { relay: withEvents, upstream, streamCount: STREAMS, idleSeconds: IDLE_SECONDS });
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
