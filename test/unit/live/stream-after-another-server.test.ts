// A live stream on a relay whose modules are first loaded after another @hono/node-server server has started in the
// same process (the simulator's here; an embedded one, or any server started before a later import, in a real
// process). The first such server replaces the global Response with a lighter class of its own, and a marker answer
// built afterwards with that class took the server's ordinary path: it wrote a second head over the stream's and, on
// the error, cut the stream just after its first comment.
// The relay is imported only inside the test, after the simulator has started: nothing here may import src/relay at
// the top, or the order this file exists for is gone.
// Needs a fresh module graph: in a worker shared with other files, an earlier one has loaded the relay and started a
// server already (test/support/isolated-unit-tests.ts).
import { afterEach, expect, it } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { bearer } from '../../support/conversation-calls.ts';
import { readStream } from '../../support/live-stream.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('a stream opened on a relay loaded after another server started goes on past its first comment', async () => {
  const responseBefore = globalThis.Response;
  const simulator = await startSimulatorServer({ botReplyDelayMs: 0, agentJoinDelayMs: 0 });
  cleanups.push(() => simulator.close());
  // The precondition this file is about: the global class was replaced before the relay's modules were evaluated.
  expect(globalThis.Response).not.toBe(responseBefore);

  const { startCountedRelay } = await import('../../support/counted-relay.ts');
  const { relay, call } = await startCountedRelay(simulator);
  cleanups.push(() => relay.close());
  const created = await call('/v1/conversations', { body: { client_id: 'demo-client' } });
  const handle = ((await created.json()) as { conversation: string }).conversation;

  const stream = readStream(await call('/v1/conversation/events?after=0', { headers: bearer(handle) }));
  cleanups.push(() => stream.cancel());
  expect(stream.answer.status).toBe(200);
  // The first comment was written before the cut; the conversation's status comes only on a stream that goes on.
  await stream.next((event) => event.event === 'status');
  expect(stream.ended()).toBe(false);
}, 20_000);

it("the relay's marker carries the header @hono/node-server's own marker does, so an upgrade that renames it fails here", async () => {
  const { RESPONSE_ALREADY_SENT } = await import('@hono/node-server/utils/response');
  const { ALREADY_SENT_HEADER, alreadySent } = await import('../../../src/relay/http/already-sent.ts');
  expect([...RESPONSE_ALREADY_SENT.headers]).toEqual([[ALREADY_SENT_HEADER, 'true']]);
  expect([...alreadySent().headers]).toEqual([[ALREADY_SENT_HEADER, 'true']]);
});
