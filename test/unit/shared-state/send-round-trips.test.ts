// What one send costs Redis: a relay on a real redis-server sends a message, and every command the relay's
// connections issue meanwhile is heard through MONITOR. The send's own records (its idempotency record and the record
// of its attempt, whose outcome stays unknown until upstream answers) are counted apart from the quotas and the
// retired-handle check, which every conversation call makes: the records take one step before the send goes upstream
// (the key and the attempt) and one after (the result, the attempt answered).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { createRedisSharedState, type SharedState } from '../../../src/relay/stores.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';
import { createRelayHarness } from '../relay/relay-harness.ts';

let redis: TestRedis;
let shared: SharedState;
let harness: ReturnType<typeof createRelayHarness>;
let monitor: Redis;
beforeAll(async () => {
  redis = await startTestRedis();
  shared = createRedisSharedState(
    redis.url,
    createJsonLogger(() => {}),
  );
  // The relay's connections finish starting (the presence key, the bus's subscription) before MONITOR does: ioredis
  // takes a line that Redis reports in the same packet as MONITOR's own "OK" for the answer to a command.
  await shared.stores.readiness.redis?.();
  while (!shared.events.linked()) await new Promise((resolve) => setTimeout(resolve, 20));
  monitor = await new Redis(redis.url).monitor();
});
afterAll(async () => {
  harness?.close();
  monitor?.disconnect();
  await shared?.close();
  await redis?.close();
});

/** The send's own records: the idempotency record (`pwc:idem:`) and the attempt's (`pwc:lost:`, `pwc:answered:`). */
const SEND_RECORDS = /^pwc:(idem|lost|answered):/;
const BACKGROUND = new Set(['ping', 'info', 'subscribe', 'client', 'select']);

it('a send costs its own records 2 round trips to Redis (one before it goes upstream, one after), a script or a transaction counting as one', async () => {
  harness = createRelayHarness({ app: { shared } });
  const handle = await harness.startConversation();
  // The create's own bookkeeping may land just after its answer: not counted as the send's.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const heard: string[][] = [];
  // A script's own commands are reported too, from the source `lua`: the script was one round trip.
  const listener = (_time: string, args: string[], source: string) => {
    if (source !== 'lua') heard.push(args);
  };
  monitor.on('monitor', listener);
  const sent = await harness.fromPanel(handle, '/v1/conversation/messages', {
    body: { text: 'Can I bring my daughter to the same appointment?' },
    headers: { 'Idempotency-Key': 'round-trips-key-0001' },
  });
  expect(sent.status).toBe(201);
  // MONITOR reports a command as Redis runs it: the last one has been heard well within this.
  await new Promise((resolve) => setTimeout(resolve, 200));
  monitor.off('monitor', listener);
  const commands = heard.filter(([name]) => !BACKGROUND.has(name!.toLowerCase()) && !/^pwc:present/.test(name!));
  // A MULTI/EXEC block is one round trip; a script is one, whatever it touches.
  const roundTrips = (touching: (args: string[]) => boolean) => {
    let count = 0;
    let inTransaction = false;
    let transactionCounts = false;
    for (const args of commands) {
      const name = args[0]!.toLowerCase();
      if (name === 'multi') {
        inTransaction = true;
        transactionCounts = false;
        continue;
      }
      if (name === 'exec') {
        inTransaction = false;
        if (transactionCounts) count += 1;
        continue;
      }
      if (!touching(args)) continue;
      if (inTransaction) transactionCounts = true;
      else count += 1;
    }
    return count;
  };
  const keysOf = (args: string[]) =>
    args[0]!.toLowerCase() === 'eval' || args[0]!.toLowerCase() === 'evalsha'
      ? args.slice(3, 3 + Number(args[2]))
      : [args[1] ?? ''];
  const sendRecords = roundTrips((args) => keysOf(args).some((key) => SEND_RECORDS.test(key)));
  const all = roundTrips(() => true);
  console.info(`a send's round trips to Redis: ${sendRecords} for its own records, ${all} in all`);
  expect(sendRecords).toBeLessThanOrEqual(2);
  // The handle's live entry is asked once: at the request's start, before its body is read; the write's own check
  // then asks the policy only about the status.
  expect(roundTrips((args) => keysOf(args).some((key) => key.startsWith('pwc:live:')))).toBe(1);
});
