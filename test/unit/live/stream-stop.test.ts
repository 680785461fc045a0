// The relay's immediate stop (RunningRelay.close) with a live stream open, on a real port: a stream's connection is
// taken from Node's HTTP server once its head is written (src/relay/live/socket-takeover.ts), which the server's own
// closeAllConnections() then no longer reaches, so the stop must close it itself, at once, and not wait on it.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { bearer } from '../../support/conversation-calls.ts';
import { startCountedRelay } from '../../support/counted-relay.ts';
import { readStream } from '../../support/live-stream.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('RunningRelay.close() with live streams open', () => {
  it("closes every stream's connection and resolves, without waiting on the streams' lifetimes", async () => {
    const simulator = await startSimulatorServer({ botReplyDelayMs: 0, agentJoinDelayMs: 0 });
    cleanups.push(() => simulator.close());
    // A lifetime far beyond the test's own timeout: only the stop can end these streams in time.
    const { relay, call } = await startCountedRelay(simulator, { STREAM_LIFETIME_SECONDS: '3600' });
    const created = await call('/v1/conversations', { body: { client_id: 'demo-client' } });
    const handle = ((await created.json()) as { conversation: string }).conversation;
    const streams = await Promise.all(
      [0, 1].map(async () => readStream(await call('/v1/conversation/events?after=0', { headers: bearer(handle) }))),
    );
    for (const stream of streams) {
      cleanups.push(() => stream.cancel());
      await stream.next((event) => event.event === 'status');
    }
    await relay.close();
    for (const stream of streams) {
      await stream.next(() => false, 5000).catch(() => {});
      expect(stream.ended()).toBe(true);
    }
  }, 15_000);
});
