// What a reader of Redis learns: a relay on a real redis-server serves two visitors (create, a send and its retry,
// reads, an escalation, a resolution the relay sees, a service event, End chat), then every key and value in Redis is
// read back, as is every message a subscriber of its own heard on the events channel. None may hold an upstream id, a
// handle, an Idempotency-Key (a create's or a send's), a visitor's address or message text in clear, and every key
// family must be one docs/deploying.md lists.
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { UPSTREAM_EVENTS_PATH, signEvent } from '../../../src/relay/upstream/contract/index.ts';
import { createRedisSharedState, type SharedState } from '../../../src/relay/stores.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';
import { createRelayHarness } from '../relay/relay-harness.ts';

const EVENTS_SECRET = 'Vq3sN8xL2mR7tB4yK9wZ1cF6hJ0pD5gA';
let redis: TestRedis;
let shared: SharedState;
let harness: ReturnType<typeof createRelayHarness>;
beforeAll(async () => {
  redis = await startTestRedis();
  shared = createRedisSharedState(
    redis.url,
    createJsonLogger(() => {}),
    undefined,
    undefined,
    new TextEncoder().encode('r'.repeat(16) + 'S3cr3t-for-the-test-only'),
  );
});
afterAll(async () => {
  harness?.close();
  await shared?.close();
  await redis?.close();
});

/** Every key in Redis with its value (strings as they are, other types as their members). */
async function everything(): Promise<Map<string, string>> {
  const reader = new Redis(redis.url);
  try {
    const found = new Map<string, string>();
    for (const key of await reader.keys('*')) {
      const type = await reader.type(key);
      const value =
        type === 'string'
          ? await reader.get(key)
          : type === 'hash'
            ? JSON.stringify(await reader.hgetall(key))
            : type === 'zset'
              ? JSON.stringify(await reader.zrange(key, '0', '-1'))
              : type;
      found.set(key, value ?? '');
    }
    return found;
  } finally {
    reader.disconnect();
  }
}

/** The key families the table under "What Redis holds" in docs/deploying.md names, e.g. `pwc:create:`. */
function documentedFamilies(): string[] {
  const guide = readFileSync(new URL('../../../docs/deploying.md', import.meta.url), 'utf8');
  const start = guide.indexOf('### What Redis holds');
  const section = guide.slice(start, guide.indexOf('\n#', start + 1));
  return [...section.matchAll(/^\| `(pwc:[a-z-]+:?)/gm)].map((match) => match[1]!);
}

describe('what Redis holds', () => {
  it('no upstream id, handle, Idempotency-Key, address or message text in any key or value; every family documented', async () => {
    harness = createRelayHarness({
      // Every poll reads the status, so the one after the resolution sees it.
      environment: { TRUST_PROXY: '1', UPSTREAM_EVENTS_SECRET: EVENTS_SECRET, STATUS_REFRESH_SECONDS: '0' },
      app: { shared },
    });
    const eavesdropper = new Redis(redis.url);
    const overheard: string[] = [];
    const channelsHeard = new Set<string>();
    eavesdropper.on('message', (channel: string, message: string) => {
      channelsHeard.add(channel);
      overheard.push(message);
    });
    // The service's events, and the sends' notices to the instance holding the stream.
    await eavesdropper.subscribe('pwc:events', 'pwc:activity');
    const relayHeard: string[] = [];
    shared.events.subscribe(({ conversationId }) => void relayHeard.push(conversationId));
    const visitors = ['2001:db8:7:1::20', '198.51.100.77'];
    const createKeys = ['0b6f1d2e-9c4a-4b7e-8f3d-2a1c5e6b7d80', 'Xq7Lm2Rt9PbN4vYdK8wZs_c0ntents'];
    const sendKeys = ['send-key-0-Xq7Lm2Rt9PbN', 'send-key-1-Xq7Lm2Rt9PbN'];
    const handles: string[] = [];
    for (const [index, address] of visitors.entries()) {
      const created = await harness.fromFrame('/v1/conversations', {
        body: { client_id: 'demo-client' },
        headers: { 'Idempotency-Key': createKeys[index]!, 'X-Forwarded-For': address },
      });
      expect(created.status).toBe(201);
      const { conversation } = (await created.json()) as { conversation: string };
      handles.push(conversation);
      for (let attempt = 0; attempt < 2; attempt++) {
        const sent = await harness.fromPanel(conversation, '/v1/conversation/messages', {
          body: { text: `canary-text-${index} my test results` },
          headers: { 'Idempotency-Key': sendKeys[index]!, 'X-Forwarded-For': address },
        });
        expect(sent.status).toBe(201);
      }
      expect(
        (
          await harness.fromPanel(conversation, '/v1/conversation/messages?after=0', {
            headers: { 'X-Forwarded-For': address },
          })
        ).status,
      ).toBe(200);
    }
    expect(
      (
        await harness.fromPanel(handles[0]!, '/v1/conversation/escalate', {
          body: {},
          headers: { 'X-Forwarded-For': visitors[0]! },
        })
      ).status,
    ).toBe(200);
    const conversationIds = [...harness.simulator.store.conversations.keys()];
    // The practice resolves the first conversation, and the panel's next poll is the relay's first sighting of it.
    await harness.resolveUpstream(conversationIds[0]);
    expect(
      (
        await harness.fromPanel(handles[0]!, '/v1/conversation/messages?after=0', {
          headers: { 'X-Forwarded-For': visitors[0]! },
        })
      ).status,
    ).toBe(200);
    const event = JSON.stringify({
      id: 'evt-canary-0001',
      type: 'conversation.message_created',
      conversation: conversationIds[0],
      occurred_at: new Date().toISOString(),
    });
    const posted = await harness.app.request(`http://relay.test${UPSTREAM_EVENTS_PATH}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Upstream-Signature': signEvent(EVENTS_SECRET, Math.floor(Date.now() / 1000), event),
      },
      body: event,
    });
    expect(posted.status).toBe(204);
    // The relay's own subscription hears the id; a stranger's only a sealed value.
    await expect.poll(() => relayHeard).toContain(conversationIds[0]);
    await expect.poll(() => channelsHeard.size).toBe(2);
    eavesdropper.disconnect();
    expect(
      overheard.flatMap((message) =>
        [...conversationIds, 'evt-canary-0001'].filter((secret) => message.includes(secret)),
      ),
    ).toEqual([]);
    expect(
      (
        await harness.fromPanel(handles[1]!, '/v1/conversation', {
          method: 'DELETE',
          headers: { 'X-Forwarded-For': visitors[1]! },
        })
      ).status,
    ).toBe(204);

    const messageIds = [...harness.simulator.store.messages.values()].flat().map((message) => message.id);
    const secrets = [
      ...conversationIds,
      ...messageIds,
      ...handles,
      ...createKeys,
      ...sendKeys,
      ...visitors,
      '2001:db8:7:1::',
      'canary-text',
      'test results',
      'evt-canary-0001',
    ];
    expect(conversationIds).toHaveLength(2);
    expect(messageIds.length).toBeGreaterThanOrEqual(2);
    const stored = await everything();
    expect(stored.size).toBeGreaterThan(0);
    const leaks = [...stored].flatMap(([key, value]) =>
      secrets.filter((secret) => key.includes(secret) || value.includes(secret)).map((secret) => `${secret} in ${key}`),
    );
    expect(leaks).toEqual([]);

    const families = documentedFamilies();
    const undocumented = [...stored.keys()].filter((key) => !families.some((family) => key.startsWith(family)));
    expect(undocumented).toEqual([]);
    // The families this run must have written, so the check above saw something of each.
    for (const family of ['pwc:create:', 'pwc:idem:', 'pwc:live:', 'pwc:resolved:', 'pwc:quota:', 'pwc:evt:'])
      expect(
        [...stored.keys()].some((key) => key.startsWith(family)),
        family,
      ).toBe(true);
  });
});
