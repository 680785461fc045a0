// The Redis primary lost for good (SIGKILL) under three relay processes that reach it through Redis Sentinel (a
// primary, a replica and three real Sentinels on loopback), while visitors create conversations and send messages
// through a round-robin proxy with the panel's own retry policy, and live streams are open on every instance. Until
// the Sentinels promote the replica the relay answers 503 storage_unavailable with Retry-After; after it every
// instance answers again within 5 s of the Sentinels' +switch-master, every message is stored upstream exactly once,
// every create made one conversation, every visitor's retry landed, and the streams hear the service's events again
// (through the instances' pub/sub, which followed the failover). pwc_redis_up shows the outage on each instance, and
// each logs one line at the loss and one at the return.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { startSimulatorServer, type SimulatorServer } from '../../../src/simulator/server.ts';
import { bearer, MESSAGES } from '../../support/conversation-calls.ts';
import { freePort, freePorts } from '../../support/free-port.ts';
import { readStream } from '../../support/live-stream.ts';
import { withPanelRetries } from '../../support/panel-retries.ts';
import { startRelayProcess, type RelayProcess } from '../../support/relay-process.ts';
import { startSentinelGroup, type SentinelGroup } from '../../support/redis-sentinel-group.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../support/round-robin-proxy.ts';

const HANDLE_SECRET = randomBytes(32).toString('base64');
const EVENTS_SECRET = randomBytes(32).toString('base64');
/** The issue's promise: the relay answers again this soon after the Sentinels name the new primary. */
const ANSWERS_AGAIN_WITHIN_MS = 5000;
const VISITORS = 6;
const CREATORS = 2;
const PROBE_EVERY_MS = 100;

let group: SentinelGroup;
let upstream: SimulatorServer;
let proxy: RoundRobinProxy;
let relays: { process: RelayProcess; metricsUrl: string }[] = [];

beforeAll(async () => {
  group = await startSentinelGroup();
  const proxyPort = await freePort();
  upstream = await startSimulatorServer({
    port: 0,
    botReplyDelayMs: 60_000,
    agentJoinDelayMs: 60_000,
    events: { url: `http://127.0.0.1:${proxyPort}/v1/upstream-events`, secret: EVENTS_SECRET },
  });
  const environment = {
    UPSTREAM_URL: upstream.url,
    UPSTREAM_USERNAME: upstream.simulator.seed.username,
    UPSTREAM_PASSWORD: upstream.simulator.seed.password,
    HANDLE_SECRET,
    UPSTREAM_EVENTS_SECRET: EVENTS_SECRET,
    PUBLIC_ORIGIN: `http://127.0.0.1:${proxyPort}`,
    REDIS_SENTINELS: group.sentinelList,
    REDIS_SENTINEL_MASTER_NAME: group.masterName,
    REDIS_PASSWORD: group.password,
    REDIS_SENTINEL_PASSWORD: group.sentinelPassword,
    REQUESTS_PER_MINUTE_PER_IP: '1000000',
    CONVERSATIONS_PER_HOUR_PER_IP: '1000000',
    MESSAGES_PER_MINUTE_PER_CONVERSATION: '1000000',
  };
  const metricsPorts = await freePorts(3);
  relays = await Promise.all(
    metricsPorts.map(async (port) => ({
      process: await startRelayProcess({ ...environment, METRICS_PORT: String(port) }),
      metricsUrl: `http://127.0.0.1:${port}/metrics`,
    })),
  );
  proxy = await startRoundRobinProxy(() => relays.map((relay) => relay.process.url), proxyPort);
}, 90_000);
afterAll(async () => {
  await proxy?.close();
  await Promise.all(relays.map((relay) => relay.process.stop('SIGKILL')));
  await Promise.all([upstream?.close(), group?.close()]);
});

const frame = () => ({ Origin: proxy.url, 'X-Practice-Chat': 'frame', 'Content-Type': 'application/json' });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const key = () => randomBytes(16).toString('hex');

function create(base: string, idempotencyKey: string) {
  return fetch(`${base}/v1/conversations`, {
    method: 'POST',
    headers: { ...frame(), 'Idempotency-Key': idempotencyKey },
    body: JSON.stringify({ client_id: 'demo-client' }),
  });
}

function send(base: string, handle: string, idempotencyKey: string, text: string) {
  return fetch(`${base}${MESSAGES}`, {
    method: 'POST',
    headers: { ...frame(), 'Idempotency-Key': idempotencyKey, ...bearer(handle) },
    body: JSON.stringify({ text }),
  });
}

/** A conversation made on `base`, its handle and its upstream id (the newest the simulator holds: make one at a time). */
async function conversationOn(base: string) {
  const created = await create(base, key());
  expect(created.status).toBe(201);
  const { conversation } = (await created.json()) as { conversation: string };
  return { handle: conversation, upstreamId: [...upstream.simulator.store.conversations.keys()].at(-1)! };
}

/** What the panel does with a stream, held on one instance: open it after its cursor, and again when it ends. */
function followOn(base: string, handle: string) {
  const texts: string[] = [];
  let cursor = 0;
  let stopped = false;
  let current: ReturnType<typeof readStream> | null = null;
  const running = (async () => {
    while (!stopped) {
      const answer = await fetch(`${base}/v1/conversation/events?after=${cursor}`, {
        headers: { ...frame(), ...bearer(handle) },
      }).catch(() => null);
      if (answer?.status === 200) {
        current = readStream(answer);
        let seen = 0;
        for (let ended = false; !stopped && !ended; ) {
          ended = current.ended();
          for (const item of current.events.slice(seen)) {
            if (item.event !== 'message') continue;
            const message = item.data as { sequence: number; text: string };
            texts.push(message.text);
            cursor = Math.max(cursor, message.sequence);
          }
          seen = current.events.length;
          if (!ended) await pause(50);
        }
      }
      await pause(100);
    }
  })();
  return {
    texts,
    stop: async () => {
      stopped = true;
      await current?.cancel();
      await running;
    },
  };
}

interface ProbeAnswer {
  sentAt: number;
  answeredAt: number;
  /** 0: no answer. */
  status: number;
  code: string | null;
  retryAfter: string | null;
}

/** Sends on its own conversation, directly to one instance, every PROBE_EVERY_MS: when each answer came, and what. */
function probe(base: string, handle: string) {
  const answers: ProbeAnswer[] = [];
  let stopped = false;
  const running = (async () => {
    for (let n = 0; !stopped; n++) {
      const sentAt = Date.now();
      const response = await send(base, handle, key(), `probe ${n} ${sentAt}`).catch(() => null);
      const answeredAt = Date.now();
      const body = (await response?.json().catch(() => null)) as { error?: { code: string } } | null;
      answers.push({
        sentAt,
        answeredAt,
        status: response?.status ?? 0,
        code: body?.error?.code ?? null,
        retryAfter: response?.headers.get('Retry-After') ?? null,
      });
      await pause(PROBE_EVERY_MS);
    }
  })();
  return {
    answers,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** pwc_redis_up and pwc_events_link_up of one instance, scraped as often as a fast Prometheus would. */
function sampleMetrics(metricsUrl: string) {
  const samples: { at: number; redisUp: number; eventsLinkUp: number }[] = [];
  let stopped = false;
  const value = (text: string, name: string) =>
    Number(
      text
        .split('\n')
        .find((line) => line.startsWith(`${name} `))
        ?.split(' ')[1],
    );
  const running = (async () => {
    while (!stopped) {
      const text = await fetch(metricsUrl)
        .then((answer) => answer.text())
        .catch(() => '');
      samples.push({
        at: Date.now(),
        redisUp: value(text, 'pwc_redis_up'),
        eventsLinkUp: value(text, 'pwc_events_link_up'),
      });
      await pause(100);
    }
  })();
  return {
    samples,
    last: async () => value(await (await fetch(metricsUrl)).text(), 'pwc_redis_primary_changes_total'),
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** A visitor as the panel behaves: one conversation, then one message after another, each retried until it lands. */
function visitor(index: number) {
  const sent: string[] = [];
  const refusals: number[] = [];
  let stopped = false;
  const running = (async () => {
    const idempotencyKey = key();
    const created = await withPanelRetries(() => create(proxy.url, idempotencyKey), 201);
    refusals.push(...created.refusals);
    const { conversation: handle } = (await created.response.json()) as { conversation: string };
    for (let n = 1; !stopped; n++) {
      const text = `visitor ${index} message ${n}`;
      const messageKey = key();
      const landed = await withPanelRetries(() => send(proxy.url, handle, messageKey, text), 201);
      refusals.push(...landed.refusals);
      await landed.response.body?.cancel();
      sent.push(text);
      await pause(50);
    }
  })();
  return {
    sent,
    refusals,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** A visitor who opens the panel and starts a chat, again and again: each create retried until it lands. */
function creator() {
  const keys: string[] = [];
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const idempotencyKey = key();
      const landed = await withPanelRetries(() => create(proxy.url, idempotencyKey), 201);
      await landed.response.body?.cancel();
      keys.push(idempotencyKey);
      await pause(50);
    }
  })();
  return {
    keys,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

const storedCopies = (text: string) =>
  [...upstream.simulator.store.messages.values()]
    .flat()
    .filter((message) => message.sender === 'visitor' && message.text === text).length;

/** The relay's own log lines about Redis (`"redis": "lost"`, `"back"`, …) written after `since`. */
function redisLines(relay: RelayProcess, since: number) {
  return relay
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map(
      (line) => JSON.parse(line) as { time: string; level: string; message: string; redis?: string; primary?: string },
    )
    .filter((line) => line.redis !== undefined && Date.parse(line.time) >= since);
}

describe('a Sentinel failover under traffic', () => {
  it('the primary killed: 503 with Retry-After meanwhile; every instance answers again within 5 s of +switch-master; nothing lost or doubled', async () => {
    onTestFailed(() => {
      for (const [index, relay] of relays.entries())
        console.log(
          `relay ${index}:\n${relay.process
            .output()
            .split('\n')
            .filter((line) => !line.includes('"route"'))
            .join('\n')}`,
        );
      console.log(`Sentinel group:\n${group.output().slice(-6000)}`);
    });
    // A stream on each instance, and a staff reply each hears: the service's events now reach every instance.
    const streamed: Awaited<ReturnType<typeof conversationOn>>[] = [];
    // One after another: each upstream id is the newest conversation when its create returns.
    for (const relay of relays) streamed.push(await conversationOn(relay.process.url));
    const followers = streamed.map(({ handle }, index) => followOn(relays[index]!.process.url, handle));
    await pause(500);
    for (const { upstreamId } of streamed) upstream.simulator.writeAs(upstreamId, 'agent', 'before the failover');
    await expect
      .poll(() => followers.every((follower) => follower.texts.includes('before the failover')), { timeout: 20_000 })
      .toBe(true);

    const probes = await Promise.all(
      relays.map(async (relay) => probe(relay.process.url, (await conversationOn(relay.process.url)).handle)),
    );
    const samplers = relays.map((relay) => sampleMetrics(relay.metricsUrl));
    const visitors = Array.from({ length: VISITORS }, (_, index) => visitor(index));
    const creators = Array.from({ length: CREATORS }, () => creator());
    await pause(1500);

    const oldPrimary = await group.primaryPort();
    const { switched } = await group.watchForSwitch();
    await group.kill(oldPrimary);
    const killedAt = Date.now();
    const promotion = await Promise.race([
      switched,
      pause(30_000).then(() => {
        throw new Error(`no +switch-master within 30 s of the kill:\n${group.output().slice(-3000)}`);
      }),
    ]);

    // Each instance's first 2xx to a send made after the kill.
    const firstAnswers = () =>
      probes.map(
        (instance) => instance.answers.find((answer) => answer.sentAt > killedAt && answer.status === 201) ?? null,
      );
    await expect.poll(() => firstAnswers().every((answer) => answer !== null), { timeout: 20_000 }).toBe(true);
    // Traffic goes on a while on the new primary, then every visitor finishes the message in hand.
    await pause(1500);
    await Promise.all([...visitors, ...creators].map((each) => each.stop()));
    await Promise.all(probes.map((each) => each.stop()));

    // Every stream still hears the service: a staff reply after the failover reaches each, through pub/sub (the
    // watches, woken by events before, read only every few minutes by themselves).
    for (const { upstreamId } of streamed) upstream.simulator.writeAs(upstreamId, 'agent', 'after the failover');
    await expect
      .poll(() => followers.every((follower) => follower.texts.includes('after the failover')), { timeout: 20_000 })
      .toBe(true);
    await Promise.all(followers.map((follower) => follower.stop()));
    await Promise.all(samplers.map((sampler) => sampler.stop()));

    const resumedAfterMs = firstAnswers().map((answer) => answer!.answeredAt - promotion.at);
    // Every send refused after the kill, on any instance: what the relay answers while it knows no primary.
    const refused = probes.flatMap((instance) =>
      instance.answers.filter((answer) => answer.sentAt > killedAt && answer.status !== 201),
    );
    const sentMessages = visitors.flatMap((each) => each.sent);
    const copies = sentMessages.map(storedCopies);
    const createKeys = creators.flatMap((each) => each.keys);
    const refusals = visitors.flatMap((each) => each.refusals);
    console.log(
      `Sentinel failover: +switch-master ${((promotion.at - killedAt) / 1000).toFixed(1)} s after the kill; first 2xx on each instance ${resumedAfterMs.map((ms) => `${ms} ms`).join(', ')} after it; ${refused.length} probe sends refused; ${sentMessages.length} visitor messages (${copies.filter((count) => count === 1).length} stored once), ${createKeys.length} creates, visitors' refused attempts ${refusals.length} (${[...new Set(refusals)].join(', ')})`,
    );

    // The outage was seen and answered as one: 503 storage_unavailable with Retry-After, and each instance's
    // pwc_redis_up went to 0. (The visitors retried whatever the panel retries; withPanelRetries fails on the rest.)
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.map(({ status, code, retryAfter }) => ({ status, code, retryAfter }))).toEqual(
      refused.map(() => ({ status: 503, code: 'storage_unavailable', retryAfter: '2' })),
    );
    for (const sampler of samplers) {
      expect(sampler.samples.some((sample) => sample.at > killedAt && sample.redisUp === 0)).toBe(true);
      expect(sampler.samples.at(-1)).toMatchObject({ redisUp: 1, eventsLinkUp: 1 });
      expect(await sampler.last()).toBe(1);
    }
    // And it ended within the promise on every instance.
    expect(resumedAfterMs.every((ms) => ms <= ANSWERS_AGAIN_WITHIN_MS)).toBe(true);

    // Nothing lost, nothing doubled: every message once, every create one conversation.
    expect(sentMessages.length).toBeGreaterThan(VISITORS);
    expect(copies).toEqual(sentMessages.map(() => 1));
    const conversationsMade = streamed.length + probes.length + VISITORS + createKeys.length;
    expect(upstream.simulator.store.conversations.size).toBe(conversationsMade);

    // One line at the loss and one at the return on each instance, naming the new primary; no password anywhere.
    for (const relay of relays) {
      const lines = redisLines(relay.process, killedAt - 1000);
      expect(lines.map((line) => [line.level, line.redis])).toEqual([
        ['warn', 'lost'],
        ['info', 'back'],
      ]);
      expect(lines[1]!.primary).toBe(`127.0.0.1:${promotion.port}`);
      expect(relay.process.output()).not.toContain(group.password);
      expect(relay.process.output()).not.toContain(group.sentinelPassword);
    }
  }, 120_000);
});
