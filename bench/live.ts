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
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createSimulator } from '../src/simulator/app.ts';
import { nextPollDelayMs, type PollContext } from '../src/frame/model/poll-cadence.ts';
import { freePort } from '../tools/free-port.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
// A whole safety-net cycle of the idle watches (120-144 s after they open), so their reads are all counted once.
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 150);
const READS_SECONDS = Number(process.env.BENCH_READS_SECONDS ?? 60);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const serverJs = new URL('../dist-server/server.js', import.meta.url).pathname;
if (!existsSync(serverJs)) {
  console.error('dist-server/server.js is missing: run `npm run build` first.');
  process.exit(1);
}

const logDir = mkdtempSync(join(tmpdir(), 'bench-live-'));
const children: ChildProcess[] = [];
process.on('exit', () =>
  children.forEach((child) => {
    if (child.exitCode === null) child.kill('SIGKILL');
  }),
);

// ---- the upstream: the simulator in this process, each conversation's reads counted --------------------------------
const eventsSecret = randomBytes(32).toString('base64');
const eventsRelayPort = await freePort();
const simulator = createSimulator({
  // The bot answers a visitor after a realistic pause; the team member's messages are the bench's own.
  botReplyDelayMs: 800,
  agentJoinDelayMs: 60_000,
  events: { url: `http://127.0.0.1:${eventsRelayPort}/v1/upstream-events`, secret: eventsSecret },
});
const readsOf = new Map<string, number>();
const READ_PATH = /^\/api\/conversations\/([^/]+)\/(messages\/)?$/;
const upstream = await new Promise<{ url: string; close(): void }>((resolve) => {
  const server = serve(
    {
      fetch: (req: Request) => {
        const match = req.method === 'GET' ? READ_PATH.exec(new URL(req.url).pathname) : null;
        if (match) readsOf.set(match[1]!, (readsOf.get(match[1]!) ?? 0) + 1);
        return simulator.app.fetch(req);
      },
      port: 0,
      hostname: '127.0.0.1',
    },
    (info: AddressInfo) => resolve({ url: `http://127.0.0.1:${info.port}`, close: () => server.close() }),
  );
});

// ---- relays -------------------------------------------------------------------------------------------------------
async function startRelay(name: string, port: number, extra: Record<string, string> = {}, profile = false) {
  const logPath = join(logDir, `${name}.log`);
  const out = openSync(logPath, 'w');
  const child = spawn(
    process.execPath,
    [...(profile && PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : []), serverJs],
    {
      env: {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
        UPSTREAM_URL: upstream.url,
        UPSTREAM_USERNAME: simulator.seed.username,
        UPSTREAM_PASSWORD: simulator.seed.password,
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
}
type Relay = Awaited<ReturnType<typeof startRelay>>;

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

const frameHeaders = (relay: Relay) => ({
  Origin: relay.url,
  'X-Practice-Chat': 'frame',
  'Content-Type': 'application/json',
});

/** A new conversation's handle, through `relay`. */
async function createHandle(relay: Relay): Promise<string> {
  const answer = await fetch(`${relay.url}/v1/conversations`, {
    method: 'POST',
    headers: { ...frameHeaders(relay), 'Idempotency-Key': `bench-${randomBytes(8).toString('hex')}` },
    body: JSON.stringify({ client_id: 'demo-client' }),
  });
  if (answer.status !== 201) throw new Error(`create answered ${answer.status}`);
  return ((await answer.json()) as { conversation: string }).conversation;
}

let creating: Promise<unknown> = Promise.resolve();
/**
 * A conversation through `relay`: its handle, and its upstream id, the simulator's newest conversation once the create
 * is answered. Handles are sealed, so that is the only way to tell; creates that need the id go one at a time.
 */
function createConversation(relay: Relay): Promise<{ handle: string; id: string }> {
  const created = creating.then(async () => ({
    handle: await createHandle(relay),
    id: [...simulator.store.conversations.keys()].at(-1)!,
  }));
  creating = created.catch(() => {});
  return created;
}

const streamAgent = new Agent({ keepAlive: false, maxSockets: Infinity });

interface StreamClient {
  /** Called with each message event's data. */
  onMessage(listener: (message: { text: string; sequence: number }) => void): void;
  heartbeats: number;
  opened: Promise<void>;
  close(): void;
}

/** A stream as the panel holds it, on node:http (10,000 fetch streams would weigh on this process, not the relay's). */
function openStream(relay: Relay, handle: string): StreamClient {
  const listeners: ((message: { text: string; sequence: number }) => void)[] = [];
  let buffer = '';
  let response: IncomingMessage | null = null;
  const client: StreamClient = {
    onMessage: (listener) => void listeners.push(listener),
    heartbeats: 0,
    opened: Promise.resolve(),
    close: () => {
      outgoing.destroy();
      response?.destroy();
    },
  };
  const url = new URL('/v1/conversation/events?after=0', relay.url);
  let resolveOpened!: () => void;
  let rejectOpened!: (error: Error) => void;
  client.opened = new Promise((resolve, reject) => {
    resolveOpened = resolve;
    rejectOpened = reject;
  });
  const outgoing = request(
    url,
    { agent: streamAgent, headers: { ...frameHeaders(relay), Authorization: `Bearer ${handle}` } },
    (answer) => {
      response = answer;
      if (answer.statusCode !== 200) return rejectOpened(new Error(`stream answered ${answer.statusCode}`));
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame === ': heartbeat') client.heartbeats += 1;
          if (frame.includes('event: status')) resolveOpened();
          if (frame.includes('event: message')) {
            const data = frame
              .split('\n')
              .find((line) => line.startsWith('data: '))!
              .slice(6);
            const message = JSON.parse(data) as { text: string; sequence: number };
            listeners.forEach((listener) => {
              listener(message);
            });
          }
        }
      });
      answer.on('error', () => {});
    },
  );
  outgoing.on('error', (error) => rejectOpened(error));
  outgoing.end();
  return client;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Runs `tasks` with at most `limit` at once. */
async function pool<T>(count: number, limit: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await task(index);
      }
    }),
  );
  return results;
}

const goals: { name: string; met: boolean }[] = [];
const lines: string[] = [];
const say = (line = '') => {
  lines.push(line);
  console.log(line);
};

say(`# Live delivery bench (${new Date().toISOString()})`);
say();
say(
  `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB, Node.js ${process.version}.`,
);

// ---- (a) delivery delay -------------------------------------------------------------------------------------------
const withEvents = await startRelay('relay-events', eventsRelayPort, { UPSTREAM_EVENTS_SECRET: eventsSecret }, true);
const pollingOnly = await startRelay('relay-polling', await freePort());

/** Writes `count` team-member messages to conversations watched through `relay`, and times each one's arrival. */
async function deliveryDelays(relay: Relay, conversations: number, count: number, spreadMs: number): Promise<number[]> {
  const watched = await Promise.all(
    Array.from({ length: conversations }, async () => {
      const conversation = await createConversation(relay);
      const stream = openStream(relay, conversation.handle);
      await stream.opened;
      return { ...conversation, stream };
    }),
  );
  const delays: number[] = [];
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const target = watched[index % conversations]!;
      await sleep(Math.random() * spreadMs);
      const text = `team member reply ${index} ${randomBytes(4).toString('hex')}`;
      const arrived = new Promise<number>((resolve) =>
        target.stream.onMessage((message) => message.text === text && resolve(performance.now())),
      );
      const storedAt = performance.now();
      simulator.writeAs(target.id, 'agent', text);
      delays.push((await arrived) - storedAt);
    }),
  );
  watched.forEach((conversation) => {
    conversation.stream.close();
  });
  return delays;
}

say();
say("## (a) From the upstream storing a team member's message to a stream client receiving it");
say();
say('| relay | samples | p50 ms | p99 ms | max ms |');
say('| --- | ---: | ---: | ---: | ---: |');
const eventDelays = await deliveryDelays(withEvents, 10, SAMPLES, 20_000);
say(
  `| with upstream events | ${eventDelays.length} | ${percentile(eventDelays, 50).toFixed(1)} | ${percentile(eventDelays, 99).toFixed(1)} | ${Math.max(...eventDelays).toFixed(1)} |`,
);
// Polling only, idle (nobody wrote for 30 s): the watch reads every 15 s ± 10 %, so the wait is spread over it.
const pollDelays = await deliveryDelays(pollingOnly, 10, 20, 30_000);
say(
  `| polling only, idle watch | ${pollDelays.length} | ${percentile(pollDelays, 50).toFixed(0)} | ${percentile(pollDelays, 99).toFixed(0)} | ${Math.max(...pollDelays).toFixed(0)} |`,
);
goals.push(
  { name: 'with events p50 ≤ 100 ms', met: percentile(eventDelays, 50) <= 100 },
  { name: 'with events p99 ≤ 500 ms', met: percentile(eventDelays, 99) <= 500 },
);

// ---- (b) 10,000 idle streams ---------------------------------------------------------------------------------------
say();
say(
  `## (b) ${STREAMS.toLocaleString('en')} idle streams on one instance (the relay with events, so idle watches read every 120 s)`,
);
say();
const handles = await pool(STREAMS, 32, () => createHandle(withEvents));
await sleep(5000);
const rssBefore = rssKb(withEvents.pid);
const streams = await pool(STREAMS, 200, async (index) => {
  const stream = openStream(withEvents, handles[index]!);
  await stream.opened;
  return stream;
});
// Let the catch-up reads and first scheduled reads pass before measuring the idle state.
await sleep(10_000);
const rssAfter = rssKb(withEvents.pid);
const heartbeatsBefore = streams.reduce((sum, stream) => sum + stream.heartbeats, 0);
const cpuBefore = cpuMs(withEvents.pid);
const readsBefore = [...readsOf.values()].reduce((a, b) => a + b, 0);
await sleep(IDLE_SECONDS * 1000);
const cpuShare = (cpuMs(withEvents.pid) - cpuBefore) / (IDLE_SECONDS * 1000);
const heartbeats = streams.reduce((sum, stream) => sum + stream.heartbeats, 0) - heartbeatsBefore;
const idleReads = [...readsOf.values()].reduce((a, b) => a + b, 0) - readsBefore;
const perStreamKb = (rssAfter - rssBefore) / STREAMS;
say(
  '| streams | relay RSS before | after | added per stream | relay CPU while idle | heartbeats per stream per minute | upstream reads per second |',
);
say('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
say(
  `| ${STREAMS} | ${(rssBefore / 1024).toFixed(0)} MB | ${(rssAfter / 1024).toFixed(0)} MB | ${perStreamKb.toFixed(1)} KB | ${(cpuShare * 100).toFixed(1)} % of a core | ${((heartbeats / STREAMS) * (60 / IDLE_SECONDS)).toFixed(2)} | ${(idleReads / IDLE_SECONDS).toFixed(0)} |`,
);
goals.push(
  { name: 'at most 20 KB per idle stream', met: perStreamKb <= 20 },
  { name: 'under 5 % of a core while idle', met: cpuShare < 0.05 },
);
streams.forEach((stream) => {
  stream.close();
});
await sleep(2000);

// ---- (c) upstream reads per watched conversation per minute --------------------------------------------------------
/** A panel as it polled before streams: GET messages at nextPollDelayMs's cadence in the given state. */
function pollLikeThePanel(
  relay: Relay,
  handle: string,
  context: Omit<PollContext, 'msSinceVisitorSent'>,
  sentAt: number | null,
  until: number,
) {
  return (async () => {
    let cursor = 0;
    while (performance.now() < until) {
      const answer = await fetch(`${relay.url}/v1/conversation/messages?after=${cursor}`, {
        headers: { ...frameHeaders(relay), Authorization: `Bearer ${handle}` },
      });
      if (answer.ok) cursor = ((await answer.json()) as { cursor: number }).cursor;
      const delay = nextPollDelayMs({
        ...context,
        msSinceVisitorSent: sentAt === null ? null : performance.now() - sentAt,
      });
      if (delay === null) return;
      await sleep(delay);
    }
  })();
}

async function sendAsVisitor(relay: Relay, handle: string) {
  await fetch(`${relay.url}/v1/conversation/messages`, {
    method: 'POST',
    headers: {
      ...frameHeaders(relay),
      Authorization: `Bearer ${handle}`,
      'Idempotency-Key': `bench-${randomBytes(8).toString('hex')}`,
    },
    body: JSON.stringify({ text: 'Can I move my appointment?' }),
  });
}

interface StateRun {
  state: string;
  /** Returns the upstream conversation ids whose reads count for this state, once started. */
  polling(relay: Relay, until: number): Promise<string[]>;
  streaming(relay: Relay, until: number): Promise<string[]>;
}
const PER_STATE = 5;
const idle = { panelOpen: true, tabHidden: false, awaitingReply: false };
const states: StateRun[] = [
  {
    state: 'open, idle',
    polling: (relay, until) =>
      pool(PER_STATE, PER_STATE, async () => {
        const c = await createConversation(relay);
        void pollLikeThePanel(relay, c.handle, idle, null, until);
        return c.id;
      }),
    streaming: (relay) =>
      pool(PER_STATE, PER_STATE, async () => {
        const c = await createConversation(relay);
        openStream(relay, c.handle);
        return c.id;
      }),
  },
  {
    state: "closed (the launcher's unread count)",
    polling: (relay, until) =>
      pool(PER_STATE, PER_STATE, async () => {
        const c = await createConversation(relay);
        void pollLikeThePanel(relay, c.handle, { ...idle, panelOpen: false }, null, until);
        return c.id;
      }),
    streaming: (relay) =>
      pool(PER_STATE, PER_STATE, async () => {
        const c = await createConversation(relay);
        openStream(relay, c.handle);
        return c.id;
      }),
  },
  {
    state: 'two tabs, open and idle',
    polling: (relay, until) =>
      pool(PER_STATE, PER_STATE, async () => {
        const c = await createConversation(relay);
        void pollLikeThePanel(relay, c.handle, idle, null, until);
        void pollLikeThePanel(relay, c.handle, idle, null, until);
        return c.id;
      }),
    streaming: (relay) =>
      pool(PER_STATE, PER_STATE, async () => {
        const c = await createConversation(relay);
        openStream(relay, c.handle);
        openStream(relay, c.handle);
        return c.id;
      }),
  },
  {
    state: 'the first 30 s after the patient writes',
    polling: (relay, until) =>
      pool(PER_STATE, PER_STATE, async () => {
        const c = await createConversation(relay);
        await sendAsVisitor(relay, c.handle);
        void pollLikeThePanel(relay, c.handle, idle, performance.now(), until);
        return c.id;
      }),
    streaming: (relay) =>
      pool(PER_STATE, PER_STATE, async () => {
        const c = await createConversation(relay);
        openStream(relay, c.handle);
        await sendAsVisitor(relay, c.handle);
        return c.id;
      }),
  },
];

say();
say(
  `## (c) Upstream reads per watched conversation per minute (${PER_STATE} conversations per state, ${READS_SECONDS} s; ${READS_SECONDS < 60 ? 'scaled to a minute' : 'a minute'})`,
);
say();
say(
  "The panel's polling as it was (1 s just after writing, 5 s open, 15 s closed) against one stream per tab, with and",
);
say(
  "without upstream events. A read is a GET of the conversation's messages or of its status, counted at the upstream.",
);
say();
say('| state | polling (before) | stream, polling only | stream, with events |');
say('| --- | ---: | ---: | ---: |');
const windowSeconds = (state: StateRun) => (state.state.startsWith('the first 30 s') ? 30 : READS_SECONDS);
// Every read of these conversations counts, from their creation (which reads nothing) on: the panel's first poll and
// the stream's catch-up read alike.
const perMinute = (ids: string[], seconds: number) =>
  ids.reduce((sum, id) => sum + (readsOf.get(id) ?? 0), 0) / ids.length / (seconds / 60);
const readResults = await Promise.all(
  states.map(async (state) => {
    const seconds = windowSeconds(state);
    const until = performance.now() + seconds * 1000;
    const [polled, streamedPolling, streamedEvents] = await Promise.all([
      state.polling(pollingOnly, until),
      state.streaming(pollingOnly, until),
      state.streaming(withEvents, until),
    ]);
    await sleep(Math.max(0, until - performance.now()));
    // Counted at once, before the streams (still open) read again.
    return {
      state: state.state,
      polling: perMinute(polled, seconds),
      streamPolling: perMinute(streamedPolling, seconds),
      streamEvents: perMinute(streamedEvents, seconds),
    };
  }),
);
for (const row of readResults) {
  say(
    `| ${row.state} | ${row.polling.toFixed(1)} | ${row.streamPolling.toFixed(1)} | ${row.streamEvents.toFixed(1)} |`,
  );
  goals.push({
    name: `reads ≤ polling: ${row.state}`,
    met: row.streamPolling <= row.polling && row.streamEvents <= row.polling,
  });
}

say();
for (const goal of goals) say(`- ${goal.met ? 'met' : 'MISSED'}: ${goal.name}`);
upstream.close();
simulator.close();
// SIGTERM, so that a relay run with --cpu-prof writes its profile as it exits.
children.forEach((child) => {
  child.kill(PROFILE_DIR ? 'SIGTERM' : 'SIGKILL');
});
if (PROFILE_DIR) await sleep(3000);
process.exit(goals.every((goal) => goal.met) ? 0 : 1);
