// Streams whose client never reads, against a relay in its own process with its heap capped: a conversation whose
// history is 18 MB on the wire (1,500 messages of 2,000 control characters, each 6 bytes of JSON), opened from the
// start by twenty raw sockets that read their answer's first bytes and then nothing. The relay must stay alive, hold
// a bounded amount of memory, and close every stream's connection soon after the stream's lifetime ends, whether or
// not the client took its last bytes: until then the connection still counts toward the limits.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatorServer, type SimulatorServer } from '../../../src/simulator/server.ts';
import { startRelayProcess, type RelayProcess } from '../../support/relay-process.ts';
import { readStream } from '../../support/live-stream.ts';
import { heldClientPorts, residentBytes } from '../../support/server-connections.ts';

const STREAMS = 20;
/** The relay's limit of streams per conversation. */
const BURST = 5;
const MESSAGES = 1500;
const TEXT = '\u0001'.repeat(2000);
const LIFETIME_SECONDS = 10;
/** The longest a stream may live: its lifetime is jittered up to +20 %. */
const LONGEST_LIFETIME_MS = LIFETIME_SECONDS * 1000 * 1.2;
const CLOSE_WITHIN_MS = 5000;
const MEMORY_CEILING_BYTES = 40 * 1024 * 1024;

let upstream: SimulatorServer;
let relay: RelayProcess;
const sockets: Socket[] = [];

beforeAll(async () => {
  upstream = await startSimulatorServer({ botReplyDelayMs: 600_000, agentJoinDelayMs: 600_000 });
  relay = await startRelayProcess({
    UPSTREAM_URL: upstream.url,
    UPSTREAM_USERNAME: upstream.simulator.seed.username,
    UPSTREAM_PASSWORD: upstream.simulator.seed.password,
    HANDLE_SECRET: randomBytes(32).toString('base64'),
    STREAM_LIFETIME_SECONDS: String(LIFETIME_SECONDS),
    REQUESTS_PER_MINUTE_PER_IP: '100000',
    NODE_OPTIONS: '--max-old-space-size=192',
  });
}, 30_000);
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await relay?.stop('SIGKILL');
  await upstream?.close();
});

const frameHeaders = () => ({ Origin: relay.url, 'X-Practice-Chat': 'frame', 'Content-Type': 'application/json' });

/** Opens the stream on a raw socket, reads the status line, then reads nothing more. */
function openUnreadStream(handle: string): Promise<{ socket: Socket; status: number; clientPort: number }> {
  const { hostname, port, host } = new URL(relay.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const headers = { Host: host, ...frameHeaders(), Authorization: `Bearer ${handle}` };
      socket.write(
        `GET /v1/conversation/events?after=0 HTTP/1.1\r\n${Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')}\r\n`,
      );
    });
    socket.once('error', reject);
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 0);
      resolve({ socket, status, clientPort: socket.localPort! });
    });
  });
}

describe('streams that are never read', () => {
  it(`${STREAMS} of them on an 18 MB history leave the relay alive and bounded, and each connection closes after its lifetime`, async () => {
    const created = await fetch(`${relay.url}/v1/conversations`, {
      method: 'POST',
      headers: frameHeaders(),
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    expect(created.status).toBe(201);
    const handle = ((await created.json()) as { conversation: string }).conversation;
    const [conversationId] = [...upstream.simulator.store.conversations.keys()];
    for (let index = 0; index < MESSAGES; index++) upstream.simulator.writeAs(conversationId!, 'bot', TEXT);
    // Warm: before the baseline the relay has polled this conversation and served a stream of it to a client that
    // reads (its newest messages), so what follows measures the streams, not code run for the first time.
    expect(
      (
        await fetch(`${relay.url}/v1/conversation/messages?after=${MESSAGES - 5}`, {
          headers: { ...frameHeaders(), Authorization: `Bearer ${handle}` },
        })
      ).status,
    ).toBe(200);
    const warm = readStream(
      await fetch(`${relay.url}/v1/conversation/events?after=${MESSAGES - 5}`, {
        headers: { ...frameHeaders(), Authorization: `Bearer ${handle}` },
      }),
    );
    await warm.next((event) => event.event === 'status');
    await warm.cancel();
    const pid = relay.process.pid!;
    const relayPort = Number(new URL(relay.url).port);
    // The lowest resident memory seen from here on, not the first reading: the relay's own start-up garbage may be
    // collected while the streams run, which would hide what they add.
    let baseline = residentBytes(pid);
    let peak = baseline;

    const opened: { clientPort: number; at: number; closedAt: number | null }[] = [];
    const deadline = Date.now() + 120_000;
    let refused = 0;
    while (
      (opened.length < STREAMS || opened.some((stream) => stream.closedAt === null)) &&
      Date.now() < deadline &&
      relay.process.exitCode === null
    ) {
      // As an attacker would: several at once, so that they share one catch-up of the whole history.
      const attempts = await Promise.all(
        Array.from({ length: Math.min(BURST, STREAMS - opened.length) }, () =>
          openUnreadStream(handle).catch(() => null),
        ),
      );
      for (const attempt of attempts) {
        if (attempt?.status === 200 && opened.length < STREAMS) {
          sockets.push(attempt.socket);
          opened.push({ clientPort: attempt.clientPort, at: Date.now(), closedAt: null });
        } else {
          refused += 1;
          attempt?.socket.destroy();
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (relay.process.exitCode !== null) break;
      const resident = residentBytes(pid);
      baseline = Math.min(baseline, resident);
      peak = Math.max(peak, resident);
      const held = heldClientPorts(pid, relayPort);
      for (const stream of opened)
        if (stream.closedAt === null && !held.has(stream.clientPort)) stream.closedAt = Date.now();
    }
    const alive = relay.process.exitCode === null;
    const lateOrOpen = opened.filter(
      (stream) => stream.closedAt === null || stream.closedAt - stream.at > LONGEST_LIFETIME_MS + CLOSE_WITHIN_MS,
    );
    console.info(
      `unread streams: ${opened.length} opened (${refused} attempts refused), relay ${alive ? 'alive' : 'dead'}, ` +
        `resident memory +${((peak - baseline) / 1024 / 1024).toFixed(1)} MB at its peak, ` +
        `${lateOrOpen.length} connections still open or closed late (open for ${opened.map((stream) => (stream.closedAt === null ? 'open' : `${((stream.closedAt - stream.at) / 1000).toFixed(1)} s`)).join(', ')})`,
    );
    expect(alive, relay.output().slice(-2000)).toBe(true);
    expect((await fetch(`${relay.url}/healthz`)).status).toBe(200);
    expect(opened.length).toBe(STREAMS);
    expect(peak - baseline).toBeLessThanOrEqual(MEMORY_CEILING_BYTES);
    expect(lateOrOpen).toEqual([]);
  }, 180_000);
});
