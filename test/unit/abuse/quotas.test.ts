// Quotas: over a limit → 429 with a Retry-After a client can parse, and one visitor's flood never blocks another.
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayHarness, RELAY_ORIGIN } from '../relay/relay-harness.ts';
import { MESSAGES } from '../../support/conversation-calls.ts';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

/** Retry-After as RFC 9110 allows the relay to send it: delta-seconds, a positive whole number within an hour. */
function retryAfterSeconds(response: Response): number {
  const value = response.headers.get('Retry-After');
  expect(value).toMatch(/^[1-9][0-9]*$/);
  const seconds = Number(value);
  expect(seconds).toBeLessThanOrEqual(3600);
  return seconds;
}

const send = (handle: string, index: number) =>
  harness.fromPanel(handle, MESSAGES, {
    body: { text: `message ${index}` },
    headers: { 'Idempotency-Key': `flood-key-${String(index).padStart(6, '0')}` },
  });

describe('quotas', () => {
  it('over the conversation quota: 429 rate_limited with a parseable Retry-After, and no conversation created upstream', async () => {
    harness = createRelayHarness({ environment: { CONVERSATIONS_PER_HOUR_PER_IP: '3' } });
    for (let i = 0; i < 3; i++) await harness.startConversation();
    const before = harness.simulator.counters.apiRequests;
    const refused = await harness.fromFrame('/v1/conversations', { body: { client_id: 'demo-client' } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(retryAfterSeconds(refused)).toBeGreaterThan(0);
    expect(harness.simulator.counters.apiRequests - before).toBe(0);
    expect(harness.simulator.counters.conversationsCreated).toBe(3);
  });

  it('a message flood on one handle is cut off, with Retry-After, while another visitor keeps sending', async () => {
    harness = createRelayHarness({ environment: { MESSAGES_PER_MINUTE_PER_CONVERSATION: '5' } });
    const flooder = await harness.startConversation();
    const visitor = await harness.startConversation();
    const statuses = await Promise.all(Array.from({ length: 40 }, async (_, index) => send(flooder, index)));
    const accepted = statuses.filter((response) => response.status === 201);
    const refused = statuses.filter((response) => response.status === 429);
    expect(accepted).toHaveLength(5);
    expect(refused).toHaveLength(35);
    for (const response of refused) expect(retryAfterSeconds(response)).toBeLessThanOrEqual(60);
    const flooderId = [...harness.simulator.store.conversations.keys()][0]!;
    expect(
      harness.simulator.store.messages.get(flooderId)?.filter((message) => message.sender === 'visitor'),
    ).toHaveLength(5);
    for (let i = 0; i < 5; i++) expect((await send(visitor, 100 + i)).status).toBe(201);
  });

  it('over the per-address request quota: 429 with a parseable Retry-After, and another address is still served', async () => {
    harness = createRelayHarness({ environment: { REQUESTS_PER_MINUTE_PER_IP: '5', TRUST_PROXY: '1' } });
    const from = (address: string) =>
      harness.app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=demo-client`, {
        headers: { 'X-Forwarded-For': address },
      });
    for (let i = 0; i < 5; i++) expect((await from('203.0.113.7')).status).toBe(200);
    const refused = await from('203.0.113.7');
    expect(refused.status).toBe(429);
    retryAfterSeconds(refused);
    expect((await from('203.0.113.8')).status).toBe(200);
  });
});
