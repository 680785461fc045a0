// A message's text is hashed once per send: the idempotency store's fingerprint of the body is the one the send's
// attempt record keeps (deliver-once.ts), not a second hash of the same text.
import { afterEach, expect, it, vi } from 'vitest';
import { createRelayHarness } from './relay-harness.ts';

const hashed: string[] = [];
vi.mock('../../../src/relay/conversations/digest.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/relay/conversations/digest.ts')>();
  return {
    digest: (text: string) => {
      hashed.push(text);
      return original.digest(text);
    },
  };
});

let harness: ReturnType<typeof createRelayHarness> | undefined;
afterEach(() => harness?.close());

it('hashes the text of a sent message once', async () => {
  harness = createRelayHarness();
  const handle = await harness.startConversation();
  const text = 'My crown came loose this morning';
  hashed.length = 0;
  const sent = await harness.fromPanel(handle, '/v1/conversation/messages', {
    body: { text },
    headers: { 'Idempotency-Key': 'hash-once-key-0001' },
  });
  expect(sent.status).toBe(201);
  expect(hashed.filter((input) => input === text)).toHaveLength(1);
});
