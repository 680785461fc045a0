// Issue 18, point 2: a retried create left empty conversations upstream, since creating was not idempotent. The panel
// now sends an Idempotency-Key with POST /v1/conversations: the same key gives the same handle, on any instance, and
// no second upstream conversation.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { createRedisSharedState, type SharedState } from '../../../src/relay/stores.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';
import { createRelayHarness } from './relay-harness.ts';

const harnesses: ReturnType<typeof createRelayHarness>[] = [];
const stores: SharedState[] = [];
let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterEach(async () => {
  harnesses.splice(0).forEach((harness) => {
    harness.close();
  });
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await redis?.close();
});

const create = (harness: ReturnType<typeof createRelayHarness>, key: string | undefined, clientId = 'demo-client') =>
  harness.fromFrame('/v1/conversations', {
    body: { client_id: clientId },
    headers: key === undefined ? {} : { 'Idempotency-Key': key },
  });

describe('POST /v1/conversations with an Idempotency-Key', () => {
  it('the same key gives the same handle and opens one upstream conversation; the retry costs no quota', async () => {
    const harness = createRelayHarness({ environment: { CONVERSATIONS_PER_HOUR_PER_IP: '1' } });
    harnesses.push(harness);
    const first = await create(harness, 'create-key-0001-Xq7Lm2Rt9PbN4vYd');
    const retry = await create(harness, 'create-key-0001-Xq7Lm2Rt9PbN4vYd');
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(await retry.json()).toEqual(await first.json());
    expect(harness.simulator.store.conversations.size).toBe(1);
    // Another key is another conversation, and that one is over the quota of one.
    expect((await create(harness, 'create-key-0002-Xq7Lm2Rt9PbN4vYd')).status).toBe(429);
  });

  it('the same key under another configuration never hands out the first handle', async () => {
    const harness = createRelayHarness();
    harnesses.push(harness);
    const first = await create(harness, 'create-key-0003-Xq7Lm2Rt9PbN4vYd');
    expect(first.status).toBe(201);
    // Keys are kept per configuration: this one is looked up afresh (and the simulator has no such configuration).
    const other = await create(harness, 'create-key-0003-Xq7Lm2Rt9PbN4vYd', 'other-client');
    expect(other.status).toBe(404);
    expect(await other.text()).not.toContain((await first.json()).conversation);
  });

  it('refuses a malformed key before creating anything', async () => {
    const harness = createRelayHarness();
    harnesses.push(harness);
    const response = await create(harness, 'short');
    expect(response.status).toBe(400);
    expect(harness.simulator.store.conversations.size).toBe(0);
  });

  it('on another instance sharing Redis: the same handle, one upstream conversation', async () => {
    const [a, b] = [0, 1].map(() => {
      const shared = createRedisSharedState(
        redis.url,
        createJsonLogger(() => {}),
      );
      stores.push(shared);
      return createRelayHarness({ app: { shared } });
    });
    harnesses.push(a!, b!);
    // One upstream for both instances, as in the field.
    b!.simulator.fetch = a!.simulator.fetch.bind(a!.simulator);
    const first = await create(a!, 'create-key-0004-Xq7Lm2Rt9PbN4vYd');
    const retry = await create(b!, 'create-key-0004-Xq7Lm2Rt9PbN4vYd');
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect((await retry.json()).conversation).toBe((await first.json()).conversation);
    expect(a!.simulator.store.conversations.size).toBe(1);
  });
});

/** A create as a visitor at `address` makes it, through the one trusted proxy in front (TRUST_PROXY=1). */
const createFrom = (harness: ReturnType<typeof createRelayHarness>, key: string, address: string) =>
  harness.fromFrame('/v1/conversations', {
    body: { client_id: 'demo-client' },
    headers: { 'Idempotency-Key': key, 'X-Forwarded-For': address },
  });

const VICTIM = '198.51.100.20';
const ATTACKER = '203.0.113.66';
const VICTIM_KEY = '5f0c2a9e7b3d4186a2c9e0f1b7d3a654';

describe('a create key only its maker can use', () => {
  it("another visitor presenting the victim's key gets a conversation of its own, never the victim's handle or words", async () => {
    const harness = createRelayHarness({ environment: { TRUST_PROXY: '1' } });
    harnesses.push(harness);
    const victim = (await (await createFrom(harness, VICTIM_KEY, VICTIM)).json()) as { conversation: string };
    const sent = await harness.fromPanel(victim.conversation, '/v1/conversation/messages', {
      body: { text: 'my HIV test results' },
      headers: { 'Idempotency-Key': 'victim-message-0001' },
    });
    expect(sent.status).toBe(201);

    const stolen = await createFrom(harness, VICTIM_KEY, ATTACKER);
    expect(stolen.status).toBe(201);
    const attacker = (await stolen.json()) as { conversation: string };
    expect(attacker.conversation).not.toBe(victim.conversation);
    const read = await harness.fromPanel(attacker.conversation, '/v1/conversation/messages?after=0');
    expect(await read.text()).not.toContain('HIV');
    // The victim's own retry still gets its handle.
    expect(
      ((await (await createFrom(harness, VICTIM_KEY, VICTIM)).json()) as { conversation: string }).conversation,
    ).toBe(victim.conversation);
  });

  it("another visitor sharing Redis with the victim's instance is refused the handle too", async () => {
    const [a, b] = [0, 1].map(() => {
      const shared = createRedisSharedState(
        redis.url,
        createJsonLogger(() => {}),
      );
      stores.push(shared);
      return createRelayHarness({
        environment: { TRUST_PROXY: '1' },
        app: { shared },
      });
    });
    harnesses.push(a!, b!);
    b!.simulator.fetch = a!.simulator.fetch.bind(a!.simulator);
    const victim = (await (await createFrom(a!, `${VICTIM_KEY}x`, VICTIM)).json()) as { conversation: string };
    const stolen = (await (await createFrom(b!, `${VICTIM_KEY}x`, ATTACKER)).json()) as { conversation: string };
    expect(stolen.conversation).not.toBe(victim.conversation);
    expect(a!.simulator.store.conversations.size).toBe(2);
  });

  it.each([
    ['8 letters', 'aaaaaaaa'],
    ['a short counter', 'create-key-0001'],
    ['21 base64url characters', 'Xq7Lm2Rt9PbN4vYdK8wZs'],
    ['one letter 40 times', 'a'.repeat(40)],
    ['a short pattern repeated', 'abcab'.repeat(6)],
    ['a UUID of one digit', '11111111-1111-1111-1111-111111111111'],
    ['129 characters', `Xq7Lm2Rt9PbN4vYdK8wZs${'x'.repeat(108)}`],
    ['characters outside base64url', 'Xq7Lm2Rt9PbN4vYdK8wZs+/='],
  ])('refuses %s with 400 bad_request, before creating anything', async (_, key) => {
    const harness = createRelayHarness();
    harnesses.push(harness);
    const response = await create(harness, key);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: 'bad_request',
      message:
        'An Idempotency-Key header on a create must be a UUID or 22–128 base64url characters (at least 128 random bits).',
    });
    expect(harness.simulator.store.conversations.size).toBe(0);
  });

  it.each([
    ['a UUID', '0b6f1d2e-9c4a-4b7e-8f3d-2a1c5e6b7d80'],
    ["the panel's 32 hex digits", VICTIM_KEY],
    ['22 base64url characters', 'Xq7Lm2Rt9PbN4vYdK8wZs_'],
  ])('accepts %s', async (_, key) => {
    const harness = createRelayHarness();
    harnesses.push(harness);
    expect((await create(harness, key)).status).toBe(201);
  });

  it.each([
    ['in memory', false],
    ['in Redis', true],
  ])('after End chat the key answers nothing (%s)', async (_, shared) => {
    const stores_ = shared
      ? createRedisSharedState(
          redis.url,
          createJsonLogger(() => {}),
        )
      : undefined;
    if (stores_ !== undefined) stores.push(stores_);
    const harness = createRelayHarness({
      environment: { TRUST_PROXY: '1' },
      ...(stores_ === undefined ? {} : { app: { shared: stores_ } }),
    });
    harnesses.push(harness);
    const key = `ended-${shared ? 'r' : 'm'}-Xq7Lm2Rt9PbN4vYdK8w`;
    const { conversation } = (await (await createFrom(harness, key, VICTIM)).json()) as { conversation: string };
    expect((await harness.fromPanel(conversation, '/v1/conversation', { method: 'DELETE' })).status).toBe(204);
    const replay = await createFrom(harness, key, VICTIM);
    expect(replay.status).toBe(409);
    const body = await replay.text();
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'idempotency_conflict' } });
    expect(body).not.toContain(conversation);
    expect(harness.simulator.store.conversations.size).toBe(1);
  });
});
