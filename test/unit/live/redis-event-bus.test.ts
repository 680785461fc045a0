// The Redis event bus carries the kind of change with the conversation, so the instance holding the streams knows
// whether its status reading still holds; a change sealed by an older instance (no kind) counts as a status change.
import * as crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, expect, it, vi } from 'vitest';
import { createRecordSealer } from '../../../src/relay/conversations/record-seal.ts';
import type { ConversationChange } from '../../../src/relay/live/event-bus.ts';
import { ACTIVITY_CHANNEL, EVENTS_CHANNEL, createRedisEventBus } from '../../../src/relay/live/redis-events.ts';
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

it('a change reaches the subscriber with its kind; an unkinded one is heard as a status change', async () => {
  const redis = await startTestRedis();
  cleanups.push(() => redis.close());
  const client = new Redis(redis.url);
  cleanups.push(() => client.quit());
  const sealer = createRecordSealer(new Uint8Array(32).fill(9), 'events');
  const bus = createRedisEventBus(client, sealer);
  cleanups.push(() => bus.close());
  const heard: ConversationChange[] = [];
  bus.subscribe((change) => void heard.push(change));
  while (!bus.linked()) await new Promise((resolve) => setTimeout(resolve, 20));

  await bus.publish({ conversationId: 'conv:1', kind: 'messages' });
  await bus.publish({ conversationId: 'conv:2', kind: 'status' });
  await client.publish(EVENTS_CHANNEL, sealer.seal('events', EVENTS_CHANNEL, 'conv_3'));
  while (heard.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(heard).toEqual([
    { conversationId: 'conv:1', kind: 'messages' },
    { conversationId: 'conv:2', kind: 'status' },
    { conversationId: 'conv_3', kind: 'status' },
  ]);
});

it("derives the channel's key once, however many changes it carries and hears", async () => {
  const redis = await startTestRedis();
  cleanups.push(() => redis.close());
  const client = new Redis(redis.url);
  cleanups.push(() => client.quit());
  const bus = createRedisEventBus(client, createRecordSealer(new Uint8Array(32).fill(9), 'events'));
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
  const sealer = createRecordSealer(new Uint8Array(32).fill(9), 'events');
  const bus = createRedisEventBus(client, sealer);
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
