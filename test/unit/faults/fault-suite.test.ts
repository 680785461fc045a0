// Faults through the whole service side on real ports (relay over HTTP to the simulator), driven by the chat panel's
// own model and transport: whatever upstream and the relay do, every visitor message arrives upstream exactly once, in
// the order it was written, and the visitor never sees a failure the product could recover from.
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_DIST, startProduct } from '../../support/product.ts';
import { createPanelVisitor, type PanelVisitor } from '../../support/panel-visitor.ts';
import { SIMULATOR_SETTLE_WINDOWS } from '../../support/simulator-settle-windows.ts';

// Many visitors from one address, many messages each: quotas are not what these suites are about.
const ROOMY = {
  REQUESTS_PER_MINUTE_PER_IP: '1000000',
  CONVERSATIONS_PER_HOUR_PER_IP: '1000000',
  MESSAGES_PER_MINUTE_PER_CONVERSATION: '1000000',
  HANDLE_SECRET: 'fS7q2Lw9Xk4Rb1Zt8Nc3Vy6Hm0Pj5Gd+Ue2Aa9Ko4Ti=',
};

// With the default windows a visitor whose messages meet several lost answers spends most of the scenario's time limit
// in settle windows alone.
const LOSSY = { ...ROOMY, ...SIMULATOR_SETTLE_WINDOWS };

// `npm run test:stress` runs the longer variant: more visitors, more messages each.
const STRESS = process.env.STRESS === '1';
const LOSSY_VISITORS = STRESS ? 40 : 20;
const LOSSY_MESSAGES = STRESS ? 25 : 10;

let product: Awaited<ReturnType<typeof startProduct>> | undefined;
let visitors: PanelVisitor[] = [];
afterEach(async () => {
  visitors.forEach((visitor) => {
    visitor.dispose();
  });
  visitors = [];
  await product?.close();
  product = undefined;
});

/** Visitor texts upstream, per conversation, in sequence order. */
function upstreamTexts(): string[][] {
  return [...product!.simulator.store.messages.values()]
    .map((messages) => messages.filter((message) => message.sender === 'visitor').map((message) => message.text))
    .filter((texts) => texts.length > 0);
}

/** Each visitor's messages, as written. */
function script(visitorCount: number, perVisitor: number): string[][] {
  return Array.from({ length: visitorCount }, (_, visitor) =>
    Array.from({ length: perVisitor }, (_, index) => `visitor ${visitor} message ${index}`),
  );
}

function expectExactlyOnceInOrder(written: string[][]) {
  const upstream = upstreamTexts().sort((a, b) => a[0]!.localeCompare(b[0]!));
  const expected = [...written].sort((a, b) => a[0]!.localeCompare(b[0]!));
  expect(upstream).toEqual(expected);
}

describe('faults: every visitor message upstream exactly once, in order', () => {
  it(
    `10 % of upstream calls failing (500, 429 with Retry-After, dropped before and after handling): ${LOSSY_VISITORS * LOSSY_MESSAGES} messages from ${LOSSY_VISITORS} concurrent conversations`,
    async () => {
      product = await startProduct({ distDir: FIXTURE_DIST, environment: LOSSY, simulator: { randomSeed: 12 } });
      product.simulator.faults.set({
        errorRate: 0.025,
        rateLimitRate: 0.025,
        retryAfterSeconds: 1,
        dropRate: 0.025,
        dropAfterHandlingRate: 0.025,
      });
      const written = script(LOSSY_VISITORS, LOSSY_MESSAGES);
      visitors = written.map(() => createPanelVisitor(product!.relayUrl));
      // Each visitor writes a message, then the next a moment later: as people type, with retries under way.
      await Promise.all(
        visitors.map(async (visitor, index) => {
          for (const text of written[index]!) {
            visitor.send(text);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }),
      );
      await Promise.all(visitors.map((visitor) => visitor.allSent(STRESS ? 300_000 : 90_000)));
      product.simulator.faults.reset();
      expectExactlyOnceInOrder(written);
      // The faults really happened: more upstream calls than a clean run needs.
      expect(product.simulator.counters.apiRequests).toBeGreaterThan(LOSSY_VISITORS * (LOSSY_MESSAGES + 1));
    },
    STRESS ? 400_000 : 120_000,
  );

  it('every issued token revoked mid-run: exactly one new token request, and no visitor sees a failure', async () => {
    product = await startProduct({ distDir: FIXTURE_DIST, environment: ROOMY });
    const written = script(4, 10);
    visitors = written.map(() => createPanelVisitor(product!.relayUrl));
    written.forEach((texts, index) => {
      texts.slice(0, 5).forEach((text) => {
        visitors[index]!.send(text);
      });
    });
    await Promise.all(visitors.map((visitor) => visitor.allSent(30_000)));
    const tokenRequestsBefore = product.simulator.counters.tokenRequests;
    product.simulator.revokeAllTokens();
    written.forEach((texts, index) => {
      texts.slice(5).forEach((text) => {
        visitors[index]!.send(text);
      });
    });
    await Promise.all(visitors.map((visitor) => visitor.allSent(30_000)));
    expect(product.simulator.counters.tokenRequests - tokenRequestsBefore).toBe(1);
    expect(visitors.flatMap((visitor) => visitor.delivery()).every((message) => message.delivery === 'sent')).toBe(
      true,
    );
    expectExactlyOnceInOrder(written);
  }, 60_000);

  it('the relay restarted (same HANDLE_SECRET) while visitors send: conversations resume, nothing lost or duplicated', async () => {
    product = await startProduct({ distDir: FIXTURE_DIST, environment: ROOMY });
    const written = script(3, 12);
    visitors = written.map(() => createPanelVisitor(product!.relayUrl));
    written.forEach((texts, index) => {
      texts.slice(0, 4).forEach((text) => {
        visitors[index]!.send(text);
      });
    });
    await Promise.all(visitors.map((visitor) => visitor.allSent(30_000)));
    const conversationsBefore = product.simulator.counters.conversationsCreated;
    await product.stopRelay();
    written.forEach((texts, index) => {
      texts.slice(4).forEach((text) => {
        visitors[index]!.send(text);
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 800));
    await product.restartRelay();
    await Promise.all(visitors.map((visitor) => visitor.allSent(60_000)));
    // The same conversations: the handles still open after the restart.
    expect(product.simulator.counters.conversationsCreated).toBe(conversationsBefore);
    expectExactlyOnceInOrder(written);
  }, 90_000);
});

describe('faults: a slow or failing upstream gets a coded answer, never a hang', () => {
  it("upstream latency above the relay's timeout: a coded answer with Retry-After well before the upstream would answer", async () => {
    product = await startProduct({
      distDir: FIXTURE_DIST,
      environment: { ...ROOMY, UPSTREAM_TIMEOUT_MS: '300', REQUEST_DEADLINE_MS: '600' },
    });
    product.simulator.faults.set({ latencyMs: 4000 });
    const started = Date.now();
    const response = await fetch(`${product.relayUrl}/v1/conversations`, {
      method: 'POST',
      headers: { Origin: product.relayUrl, 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    const elapsed = Date.now() - started;
    expect([503, 504]).toContain(response.status);
    expect(['upstream_timeout', 'upstream_unavailable']).toContain(
      ((await response.json()) as { error: { code: string } }).error.code,
    );
    expect(Number(response.headers.get('Retry-After'))).toBeGreaterThan(0);
    // The deadline (600 ms) plus a margin for a loaded machine, and far below the upstream's 4 s: no hang.
    expect(elapsed).toBeLessThan(2500);
    product.simulator.faults.reset();
  }, 30_000);
});
