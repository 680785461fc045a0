// Proves with canaries that credentials, tokens, handles and message text never reach a log line or an error body.
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayHarness, RELAY_ORIGIN } from './relay-harness.ts';
import { CONVERSATION, ESCALATE, MESSAGES } from '../../support/conversation-calls.ts';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

const MESSAGE_CANARY = 'CANARY-MESSAGE my tooth hurts 4111';

/** Wraps the simulator's fetch to learn every access token it hands out. */
function recordIssuedTokens(simulator: ReturnType<typeof createRelayHarness>['simulator']): string[] {
  const tokens: string[] = [];
  const original = simulator.fetch;
  simulator.fetch = async (input, init) => {
    const response = await original(input, init);
    if (String(input instanceof Request ? input.url : input).includes('/api/oauth/token/') && response.ok) {
      const body = await response.clone().json();
      tokens.push(body.access_token, body.refresh_token);
    }
    return response;
  };
  return tokens;
}

describe('logs', () => {
  it('write one line per request with id, route pattern, client_id, status and latency', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    await harness.fromPanel(handle, `${MESSAGES}?after=0`);
    const lines = harness.logLines.map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      event: 'request',
      method: 'GET',
      route: '/v1/conversation/messages',
      client_id: 'demo-client',
      status: 200,
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      latency_ms: expect.any(Number),
    });
  });

  it('never contain the password, a token, a handle or message text, on success or failure', async () => {
    const PASSWORD_CANARY = 'CANARY-PASSWORD-7f3a';
    // A relay whose password is wrong: its failures must not repeat the password.
    const wrong = createRelayHarness({ password: PASSWORD_CANARY });
    await wrong.app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=demo-client`);
    const wrongBody = await (await wrong.fromFrame('/v1/conversations', { body: { client_id: 'demo-client' } })).text();
    wrong.close();

    harness = createRelayHarness();
    const tokens = recordIssuedTokens(harness.simulator);
    const handle = await harness.startConversation();
    const bodies: string[] = [wrongBody];
    const sendCanary = async (key: string) =>
      bodies.push(
        await (
          await harness.fromPanel(handle, MESSAGES, {
            body: { text: MESSAGE_CANARY },
            headers: { 'Idempotency-Key': key },
          })
        ).text(),
      );
    await sendCanary('canary-key-1');
    bodies.push(
      await (
        await harness.fromPanel(handle, MESSAGES, {
          body: { text: 'other' },
          headers: { 'Idempotency-Key': 'canary-key-1' },
        })
      ).text(),
    );
    harness.simulator.faults.set({ errorRate: 1 });
    await sendCanary('canary-key-2');
    harness.simulator.faults.set({ rateLimitRate: 1 });
    await sendCanary('canary-key-3');
    harness.simulator.faults.reset();
    harness.simulator.revokeAllTokens();
    await sendCanary('canary-key-4');
    bodies.push(
      await (
        await harness.fromPanel(handle, `${MESSAGES}?after=0`, { headers: { Origin: 'https://evil.example' } })
      ).text(),
    );
    bodies.push(
      await (
        await harness.fromPanel(`${handle}x`, MESSAGES, {
          body: { text: MESSAGE_CANARY },
          headers: { 'Idempotency-Key': 'canary-key-5' },
        })
      ).text(),
    );
    // The handle where it does not belong: in a malformed Authorization header, in the old path form, in a query.
    for (const authorization of [
      `Bearer ${handle} x`,
      `Basic ${handle}`,
      `Bearer  ${handle}`,
      `Bearer ${handle}, Bearer ${handle}`,
    ]) {
      bodies.push(
        await (
          await harness.fromFrame(`${MESSAGES}?after=0`, {
            headers: { 'X-Practice-Chat': 'frame', Authorization: authorization },
          })
        ).text(),
      );
    }
    bodies.push(
      await (
        await harness.fromPanel(handle, `/v1/conversations/${handle}/messages`, {
          body: { text: MESSAGE_CANARY },
          headers: { 'Idempotency-Key': 'canary-key-6' },
        })
      ).text(),
    );
    bodies.push(
      await (
        await harness.fromFrame(`${MESSAGES}?after=0&handle=${handle}`, { headers: { 'X-Practice-Chat': 'frame' } })
      ).text(),
    );
    await harness.fromPanel(handle, ESCALATE, { body: {} });
    await harness.fromPanel(handle, CONVERSATION, { method: 'DELETE' });
    // Retired: a refusal that must not name it either.
    bodies.push(await (await harness.fromPanel(handle, `${MESSAGES}?after=0`)).text());

    expect(tokens.length).toBeGreaterThanOrEqual(2);
    const logs = [...wrong.logLines, ...harness.logLines].join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [PASSWORD_CANARY, harness.simulator.seed.password, MESSAGE_CANARY, handle, ...tokens]) {
      expect(logs).not.toContain(secret);
    }
    // Error bodies go to browsers: no secret, never the message text, never the handle echoed from a header.
    const errorBodies = bodies.filter((body) => body.includes('"error"')).join('\n');
    expect(errorBodies.length).toBeGreaterThan(0);
    for (const secret of [PASSWORD_CANARY, harness.simulator.seed.password, MESSAGE_CANARY, handle, ...tokens]) {
      expect(errorBodies).not.toContain(secret);
    }
  });
});
