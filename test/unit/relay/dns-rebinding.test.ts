// Issue 14, point 2: without PUBLIC_ORIGIN the relay used to take its own origin from the Host header, so a page on a
// DNS-rebinding name (evil.test resolving to 127.0.0.1) sent Host and Origin that agreed, and passed the origin check.
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayHarness } from './relay-harness.ts';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness.close());

async function createFrom(origin: string) {
  return harness.app.request(`${origin}/v1/conversations`, {
    method: 'POST',
    headers: { Origin: origin, 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: 'demo-client' }),
  });
}

describe('the relay never takes its origin from a non-loopback Host', () => {
  it.each([
    'http://evil.test:8787',
    'http://attacker.example',
    'http://127.0.0.1.evil.test:8787',
    'http://localhost.evil.test',
  ])('refuses a rebinding page on %s when PUBLIC_ORIGIN is unset (development)', async (origin) => {
    harness = createRelayHarness({ environment: { PUBLIC_ORIGIN: '' } });
    expect(harness.settings.publicOrigin).toBeNull();
    const response = await createFrom(origin);
    expect(response.status).toBe(403);
    expect((await response.json()).error.code).toBe('forbidden_origin');
    expect(harness.simulator.store.conversations.size).toBe(0);
  });

  it.each(['http://localhost:8787', 'http://127.0.0.1:8787', 'http://[::1]:8787'])(
    'serves its own loopback origin %s in development',
    async (origin) => {
      harness = createRelayHarness({ environment: { PUBLIC_ORIGIN: '' } });
      expect((await createFrom(origin)).status).toBe(201);
    },
  );

  it('with PUBLIC_ORIGIN, serves only that origin, whatever the Host', async () => {
    harness = createRelayHarness({ environment: { PUBLIC_ORIGIN: 'https://chat.practice.example' } });
    expect((await createFrom('http://localhost:8787')).status).toBe(403);
    const response = await harness.app.request('http://localhost:8787/v1/conversations', {
      method: 'POST',
      headers: { Origin: 'https://chat.practice.example', 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    expect(response.status).toBe(201);
  });
});
