// Issue 20's promise for live streams across a deploy: three relay processes behind a round-robin proxy (no
// stickiness), sharing Redis and UPSTREAM_EVENTS_SECRET, the simulator sending its signed events to the proxy. While a
// team member writes, the instance holding the stream is restarted three times over (taken out of the proxy, SIGTERM,
// a new one in its place). A client that does what the panel does with a stream (reconnect after the stream ends, with
// `after` = the newest sequence it holds) receives every message once and in order: nothing missed, nothing doubled.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatorServer, type SimulatorServer } from '../../../src/simulator/server.ts';
import { bearer } from '../../support/conversation-calls.ts';
import { freePort } from '../../support/free-port.ts';
import { readStream } from '../../support/live-stream.ts';
import { startRelayProcess, type RelayProcess } from '../../support/relay-process.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../support/round-robin-proxy.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

const HANDLE_SECRET = randomBytes(32).toString('base64');
const EVENTS_SECRET = randomBytes(32).toString('base64');
const WRITE_EVERY_MS = 150;

let redis: TestRedis;
let upstream: SimulatorServer;
let proxy: RoundRobinProxy;
let relays: RelayProcess[] = [];
let environment: Record<string, string>;

beforeAll(async () => {
  redis = await startTestRedis({ persistent: true });
  const proxyPort = await freePort();
  upstream = await startSimulatorServer({
    port: 0,
    botReplyDelayMs: 60_000,
    agentJoinDelayMs: 60_000,
    events: { url: `http://127.0.0.1:${proxyPort}/v1/upstream-events`, secret: EVENTS_SECRET },
  });
  environment = {
    UPSTREAM_URL: upstream.url,
    UPSTREAM_USERNAME: upstream.simulator.seed.username,
    UPSTREAM_PASSWORD: upstream.simulator.seed.password,
    HANDLE_SECRET,
    UPSTREAM_EVENTS_SECRET: EVENTS_SECRET,
    PUBLIC_ORIGIN: `http://127.0.0.1:${proxyPort}`,
    REDIS_URL: redis.url,
    REQUESTS_PER_MINUTE_PER_IP: '100000',
    SHUTDOWN_GRACE_MS: '2000',
  };
  relays = await Promise.all(Array.from({ length: 3 }, () => startRelayProcess(environment)));
  proxy = await startRoundRobinProxy(() => relays.map((relay) => relay.url), proxyPort);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await Promise.all(relays.map((relay) => relay.stop('SIGKILL')));
  await Promise.all([upstream?.close(), redis?.close()]);
});

/** The instance that opened the newest stream: the latest `/v1/conversation/events` line in the relays' logs. */
function holder(): RelayProcess {
  const latest = (relay: RelayProcess) =>
    relay
      .output()
      .split('\n')
      .filter((line) => line.includes('"route":"/v1/conversation/events"'))
      .map((line) => Date.parse((JSON.parse(line) as { time: string }).time))
      .reduce((newest, time) => Math.max(newest, time), 0);
  return relays.reduce((best, relay) => (latest(relay) > latest(best) ? relay : best));
}

const frame = () => ({ Origin: proxy.url, 'X-Practice-Chat': 'frame', 'Content-Type': 'application/json' });

/** What the panel does with the stream: open it after its cursor, and after it ends, open it again from there. */
function followLikeThePanel(handle: string) {
  const deliveries: { sequence: number; text: string }[] = [];
  let cursor = 0;
  let reconnects = 0;
  let stopped = false;
  let current: ReturnType<typeof readStream> | null = null;
  const running = (async () => {
    while (!stopped) {
      const answer = await fetch(`${proxy.url}/v1/conversation/events?after=${cursor}`, {
        headers: { ...frame(), ...bearer(handle) },
      }).catch(() => null);
      if (answer?.status === 200) {
        current = readStream(answer);
        let seen = 0;
        // Take each event as it arrives, until the stream ends (a reconnect hint, or the instance gone).
        for (let ended = false; !stopped && !ended; ) {
          ended = current.ended();
          for (const item of current.events.slice(seen)) {
            if (item.event !== 'message') continue;
            const message = item.data as { sequence: number; text: string };
            deliveries.push(message);
            cursor = Math.max(cursor, message.sequence);
          }
          seen = current.events.length;
          if (!ended) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        reconnects += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    deliveries,
    reconnects: () => reconnects,
    stop: async () => {
      stopped = true;
      await current?.cancel();
      await running;
    },
  };
}

describe('live streams through a rolling restart of three instances', () => {
  it('a team member writing throughout: every message reaches the stream once and in order', async () => {
    const created = await fetch(`${proxy.url}/v1/conversations`, {
      method: 'POST',
      headers: { ...frame(), 'Idempotency-Key': `rolling-${randomBytes(16).toString('hex')}` },
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    expect(created.status).toBe(201);
    const handle = ((await created.json()) as { conversation: string }).conversation;
    const conversationId = [...upstream.simulator.store.conversations.keys()].at(-1)!;
    const follower = followLikeThePanel(handle);

    const written: string[] = [];
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const text = `team member message ${written.length + 1}`;
        upstream.simulator.writeAs(conversationId, 'agent', text);
        written.push(text);
        await new Promise((resolve) => setTimeout(resolve, WRITE_EVERY_MS));
      }
    })();

    // The deploy, three times over: the instance holding the stream leaves the proxy, stops (its streams are told to
    // reconnect), and a new one takes its place. The holder is the one that opened the latest stream (its request log).
    for (let restart = 0; restart < 3; restart++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const leaving = holder();
      const others = relays.filter((relay) => relay !== leaving);
      const replacement = startRelayProcess(environment);
      // The proxy reads this list on every request: out of it first, as a load balancer's check would take it out.
      relays = others;
      expect(await leaving.stop('SIGTERM')).toBe(0);
      relays = [...others, await replacement];
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    writing = false;
    await writer;

    // Every message arrives (bounded: the watch also polls), then nothing more.
    const deadline = Date.now() + 20_000;
    while (follower.deliveries.length < written.length && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await follower.stop();

    const texts = follower.deliveries.map((message) => message.text);
    console.log(
      `live rolling restart: ${written.length} messages written, ${texts.length} delivered, ${follower.reconnects()} reconnects`,
    );
    expect(follower.reconnects()).toBeGreaterThanOrEqual(3);
    expect(texts).toEqual(written);
    const sequences = follower.deliveries.map((message) => message.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(sequences.length);
  }, 120_000);
});
