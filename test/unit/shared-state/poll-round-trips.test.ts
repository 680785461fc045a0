// What a poll waits on Redis for before it goes upstream: its address quota and its handle's live entry (the read
// policy's retired-handle check). Both are asked as the request arrives, so they share one round trip. A TCP hop on
// 127.0.0.1 between the relay and a real redis-server keeps, in order, every chunk each side writes: the two questions
// must both reach Redis before Redis has answered either of them.
import { createServer, type Server, type Socket, connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { createRedisSharedState, type SharedState } from '../../../src/relay/stores.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';
import { createRelayHarness } from '../relay/relay-harness.ts';

/** One chunk as it crossed the hop: which connection, which way, and its bytes as text (RESP is text here). */
interface Chunk {
  connection: number;
  from: 'relay' | 'redis';
  text: string;
}

/** A plain TCP hop to Redis that writes down every chunk, both ways, in the order they arrive. */
async function recordingHop(redisPort: number): Promise<{ server: Server; port: number; chunks: Chunk[] }> {
  const chunks: Chunk[] = [];
  const sockets: Socket[] = [];
  let connections = 0;
  const server = createServer((relaySide) => {
    connections += 1;
    const connection = connections;
    const redisSide = connect(redisPort, '127.0.0.1');
    sockets.push(relaySide, redisSide);
    relaySide.on('data', (data) => {
      chunks.push({ connection, from: 'relay', text: data.toString('latin1') });
      redisSide.write(data);
    });
    redisSide.on('data', (data) => {
      chunks.push({ connection, from: 'redis', text: data.toString('latin1') });
      relaySide.write(data);
    });
    const close = () => {
      relaySide.destroy();
      redisSide.destroy();
    };
    relaySide.on('error', close).on('close', close);
    redisSide.on('error', close).on('close', close);
  });
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the hop has no port');
  return { server, port: address.port, chunks };
}

let redis: TestRedis;
let hop: Awaited<ReturnType<typeof recordingHop>>;
let shared: SharedState;
let harness: ReturnType<typeof createRelayHarness>;
beforeAll(async () => {
  redis = await startTestRedis();
  hop = await recordingHop(Number(new URL(redis.url).port));
  shared = createRedisSharedState(
    `redis://127.0.0.1:${hop.port}`,
    createJsonLogger(() => {}),
  );
  await shared.stores.readiness.redis?.();
  harness = createRelayHarness({ app: { shared } });
});
afterAll(async () => {
  harness?.close();
  await shared?.close();
  hop?.server.close();
  await redis?.close();
});

const ADDRESS_QUOTA = 'pwc:quota:requests-per-address';
const LIVE_ENTRY = 'pwc:live:';

it("a poll asks Redis for its address quota and its handle's live entry in one round trip, before going upstream", async () => {
  const handle = await harness.startConversation();
  // The first poll loads the quota's script into Redis (a NOSCRIPT answer, then the script itself): not counted.
  expect((await harness.fromPanel(handle, '/v1/conversation/messages?after=0')).status).toBe(200);
  const from = hop.chunks.length;
  const polled = await harness.fromPanel(handle, '/v1/conversation/messages?after=0');
  expect(polled.status).toBe(200);
  const chunks = hop.chunks.slice(from);

  const quotaAt = chunks.findIndex((chunk) => chunk.from === 'relay' && chunk.text.includes(ADDRESS_QUOTA));
  const liveAt = chunks.findIndex((chunk) => chunk.from === 'relay' && chunk.text.includes(LIVE_ENTRY));
  expect(quotaAt).toBeGreaterThanOrEqual(0);
  expect(liveAt).toBeGreaterThanOrEqual(0);
  const { connection } = chunks[quotaAt]!;
  expect(chunks[liveAt]!.connection).toBe(connection);
  // Between the first of the two questions and the second, Redis answered nothing on that connection.
  const answersBetween = chunks
    .slice(Math.min(quotaAt, liveAt), Math.max(quotaAt, liveAt))
    .filter((chunk) => chunk.connection === connection && chunk.from === 'redis');
  expect(answersBetween).toEqual([]);
});
