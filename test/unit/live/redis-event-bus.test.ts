// The Redis event bus carries the kind of change with the conversation, so the instance holding the streams knows
// whether its status reading still holds; a sealed text without a kind it knows is not a change, and wakes nothing.
import * as crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, expect, it, vi } from 'vitest';
import type { ConversationChange } from '../../../src/relay/live/event-bus.ts';
import { CHANGE_PURPOSE, createChangeSealer } from '../../../src/relay/live/change-seal.ts';
import { ACTIVITY_CHANNEL, EVENTS_CHANNEL, createRedisEventBus } from '../../../src/relay/live/redis-events.ts';
import { purposeKey, sealText } from '../../../src/relay/shared-state/sealing.ts';
import { startTestRedis } from '../../support/redis-server.ts';

// Counts key derivations: the channel's key is the same for every change, so it is derived once.
vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return { ...original, hkdfSync: vi.fn(original.hkdfSync) };
});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('a change reaches the subscriber with its kind; a text without a known kind is dropped', async () => {
  const redis = await startTestRedis();
  cleanups.push(() => redis.close());
  const client = new Redis(redis.url);
  cleanups.push(() => client.quit());
  const secret = new Uint8Array(32).fill(9);
  const bus = createRedisEventBus(client, createChangeSealer(secret));
  cleanups.push(() => bus.close());
  const heard: ConversationChange[] = [];
  bus.subscribe((change) => void heard.push(change));
  while (!bus.linked()) await new Promise((resolve) => setTimeout(resolve, 20));

  await bus.publish({ conversationId: 'conv:1', kind: 'messages' });
  await bus.publish({ conversationId: 'conv:2', kind: 'status' });
  const channelKey = purposeKey(secret, CHANGE_PURPOSE);
  await client.publish(EVENTS_CHANNEL, sealText(channelKey, 'conv_3'));
  await client.publish(EVENTS_CHANNEL, sealText(channelKey, 'typing:conv_4'));
  // Published after the two on the same connection, so heard after them: once it is in, they were dropped.
  await bus.publish({ conversationId: 'conv:5', kind: 'messages' });
  while (heard.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(heard).toEqual([
    { conversationId: 'conv:1', kind: 'messages' },
    { conversationId: 'conv:2', kind: 'status' },
    { conversationId: 'conv:5', kind: 'messages' },
  ]);
});

it("derives the channel's key once, however many changes it carries and hears", async () => {
  const redis = await startTestRedis();
  cleanups.push(() => redis.close());
  const client = new Redis(redis.url);
  cleanups.push(() => client.quit());
  const bus = createRedisEventBus(client, createChangeSealer(new Uint8Array(32).fill(9)));
  cleanups.push(() => bus.close());
  const heard: ConversationChange[] = [];
  bus.subscribe((change) => void heard.push(change));
  while (!bus.linked()) await new Promise((resolve) => setTimeout(resolve, 20));

  vi.mocked(crypto.hkdfSync).mockClear();
  for (let i = 0; i < 5; i++) await bus.publish({ conversationId: `conv:${i}`, kind: 'messages' });
  while (heard.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(vi.mocked(crypto.hkdfSync)).not.toHaveBeenCalled();
});

it("a patient's send reaches the other instances as activity, never as the service's event, and sealed", async () => {
  const redis = await startTestRedis();
  cleanups.push(() => redis.close());
  const client = new Redis(redis.url);
  cleanups.push(() => client.quit());
  // Whoever watches Redis: a subscriber of their own on the activity channel.
  const watcher = new Redis(redis.url);
  cleanups.push(() => watcher.quit());
  const seen: string[] = [];
  watcher.on('message', (_channel: string, payload: string) => void seen.push(payload));
  await watcher.subscribe(ACTIVITY_CHANNEL);
  const bus = createRedisEventBus(client, createChangeSealer(new Uint8Array(32).fill(9)));
  cleanups.push(() => bus.close());
  const changes: ConversationChange[] = [];
  const activity: string[] = [];
  bus.subscribe((change) => void changes.push(change));
  bus.onActivity((conversationId) => void activity.push(conversationId));
  while (!bus.linked()) await new Promise((resolve) => setTimeout(resolve, 20));

  await bus.announceActivity('conv-activity-1');
  // Forged or garbled: not sealed with the relay's secret, so nothing is heard.
  await client.publish(ACTIVITY_CHANNEL, 'conv-activity-2');
  await bus.announceActivity('conv-activity-3');
  while (activity.length < 2 || seen.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(activity).toEqual(['conv-activity-1', 'conv-activity-3']);
  // A send read as a service event would put this instance's watches on the slow safety net.
  expect(changes).toEqual([]);
  expect(seen.filter((payload) => payload.includes('conv-activity-1') || payload.includes('conv-activity-3'))).toEqual(
    [],
  );
});
