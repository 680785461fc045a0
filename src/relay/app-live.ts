// How a conversation's content is read and followed live: the status readings, the one read policy every read goes
// through, the live hub, and the service's events that reach it (from this instance or, with Redis, from any).
import type { RelaySettings } from './settings.ts';
import type { UpstreamClient } from './upstream/index.ts';
import { createStatusReadings } from './conversations/status-readings.ts';
import type { RelayStores } from './stores.ts';
import type { EventBus } from './live/event-bus.ts';
import { createConversationReader, createStatusReader } from './conversations/conversation-reader.ts';
import { createReadPolicy } from './conversations/read-policy.ts';
import { createLiveHub } from './live/live-hub.ts';
import { createReadScheduler } from './live/read-scheduler.ts';
import type { Lifecycle } from './health/lifecycle.ts';
import type { RelayMetrics } from './metrics/metrics.ts';

export interface LiveReadsOptions {
  settings: RelaySettings;
  upstream: UpstreamClient;
  /** What every instance shares: the handles' and resolutions' stores, and the bus that carries changes. */
  shared: { stores: Pick<RelayStores, 'revocations' | 'resolutions'>; events: EventBus };
  metrics: RelayMetrics;
  lifecycle: Lifecycle;
  now: () => number;
}

export function wireLiveReads({
  settings,
  upstream,
  shared: { stores, events },
  metrics,
  lifecycle,
  now,
}: LiveReadsOptions) {
  const statusReadings = createStatusReadings({ maxAgeMs: settings.statusRefreshSeconds * 1000, now });
  // The one policy every call on a conversation goes through: the poll's and the stream's reads, and every write.
  const readPolicy = createReadPolicy({
    read: createConversationReader(upstream, statusReadings),
    readStatus: createStatusReader(upstream, statusReadings),
    revocations: stores.revocations,
    resolutions: stores.resolutions,
    now,
  });
  const live = createLiveHub({
    policy: readPolicy,
    scheduler: createReadScheduler(settings.upstreamReadConcurrency),
    lifetimeMs: settings.streamLifetimeMs,
    maxStreams: settings.maxStreams,
    // A handful of tabs; more is a script, and it polls instead.
    maxStreamsPerConversation: 5,
    maxUnsentBytes: settings.streamMaxUnsentBytes,
    safetyNetReadsPerSecond: settings.streamSafetyNetReadsPerSecond,
    announceActivity: (conversationId) => void events.announceActivity(conversationId),
    now,
  });
  metrics.liveState(() => ({
    streams: live.streams,
    watches: live.watches,
    draining: lifecycle.draining(),
    eventsLinked: events.linked(),
  }));
  // A deploy never waits on a stream: each ends at once with a hint to reconnect (to another instance).
  lifecycle.onDrain(() => live.closeAll('shutdown'));
  // A service event reaches every instance (through Redis with REDIS_URL); the one watching the conversation reads it.
  // A status change drops the reading kept here, which would hide it; new messages leave it standing, so reading
  // them costs one upstream call.
  events.subscribe(({ conversationId, kind }) => {
    if (kind === 'status') statusReadings.forget(conversationId);
    live.serviceEvent(conversationId);
  });
  // Without the service's events, a reply is found only by reading: the instance holding the patient's stream reads
  // fast after a send wherever the send landed. This instance hears its own notice too, which changes nothing.
  events.onActivity((conversationId) => live.activityElsewhere(conversationId));
  return { statusReadings, readPolicy, live };
}

export type LiveReads = ReturnType<typeof wireLiveReads>;
