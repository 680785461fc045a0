// A message is serialised once for every stream that shows it: three tabs of one conversation share one watch, and its
// read writes the same frame to each (stream-writes.ts), rather than serialising the message again per tab.
import { afterEach, expect, it, vi } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { bearer, MESSAGES } from '../../support/conversation-calls.ts';
import { startCountedRelay } from '../../support/counted-relay.ts';
import { readStream } from '../../support/live-stream.ts';

const serialised: string[] = [];
vi.mock('../../../src/relay/live/sse.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/relay/live/sse.ts')>();
  return {
    ...original,
    sseEvent: (event: string, data: unknown, id?: number) => {
      if (event === 'message') serialised.push((data as { id: string }).id);
      return original.sseEvent(event, data, id);
    },
  };
});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('serialises each new message once for three streams of one conversation', async () => {
  const simulator = await startSimulatorServer({ botReplyDelayMs: 0, agentJoinDelayMs: 0 });
  cleanups.push(() => simulator.close());
  const { relay, call } = await startCountedRelay(simulator);
  cleanups.push(() => relay.close());
  const created = await call('/v1/conversations', { body: { client_id: 'demo-client' } });
  const handle = ((await created.json()) as { conversation: string }).conversation;

  const streams = [];
  for (let tab = 0; tab < 3; tab++) {
    const stream = readStream(await call('/v1/conversation/events?after=0', { headers: bearer(handle) }));
    cleanups.push(() => stream.cancel());
    // The status ends its catch-up: from then on the watch's reads serve it.
    await stream.next((event) => event.event === 'status');
    streams.push(stream);
  }
  serialised.length = 0;
  const sent = await call(MESSAGES, {
    body: { text: 'Do you have wheelchair access?' },
    headers: { ...bearer(handle), 'Idempotency-Key': 'frames-once-0001' },
  });
  expect(sent.status).toBe(201);
  const delivered = await Promise.all(
    streams.map((stream) =>
      stream.next((event) => event.event === 'message' && (event.data as { sender: string }).sender === 'bot'),
    ),
  );
  const botId = (delivered[0]!.data as { id: string }).id;
  expect(delivered.map((event) => (event.data as { id: string }).id)).toEqual([botId, botId, botId]);
  expect(serialised.filter((id) => id === botId)).toEqual([botId]);
}, 20_000);
