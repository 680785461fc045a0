// Issue 18's trial: creates sent straight to an instance (its peer is not a trusted proxy) with a new
// X-Forwarded-For each time, against the conversation quota of 20 an hour per address. Over a real port on loopback,
// so the relay sees a real socket peer (127.0.0.1).
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_DIST, startProduct } from '../../support/product.ts';
import { startRelayProcess } from '../../support/relay-process.ts';

let product: Awaited<ReturnType<typeof startProduct>> | undefined;
afterEach(async () => {
  await product?.close();
  product = undefined;
});

/** 23 creates, each claiming another visitor's address; the statuses in order. */
async function rotatingCreates(relayUrl: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 1; index <= 23; index++) {
    const response = await fetch(`${relayUrl}/v1/conversations`, {
      method: 'POST',
      headers: { Origin: relayUrl, 'Content-Type': 'application/json', 'X-Forwarded-For': `198.51.100.${index}` },
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    statuses.push(response.status);
  }
  return statuses;
}

describe('TRUST_PROXY against a rotating X-Forwarded-For', () => {
  it.each([
    ["the load balancer's network (the sender is not it)", '10.0.0.0/8'],
    ['unset (no proxy trusted)', ''],
  ])(
    'TRUST_PROXY %s: the 21st create from one peer is refused, whatever X-Forwarded-For claims',
    async (_, trustProxy) => {
      product = await startProduct({
        distDir: FIXTURE_DIST,
        environment: { TRUST_PROXY: trustProxy, CONVERSATIONS_PER_HOUR_PER_IP: '20' },
      });
      const statuses = await rotatingCreates(product.relayUrl);
      expect(statuses).toEqual([...Array<number>(20).fill(201), 429, 429, 429]);
      expect(product.simulator.counters.conversationsCreated).toBe(20);
    },
  );

  it('TRUST_PROXY naming the sender (here playing the proxy): each forwarded address has its own quota', async () => {
    product = await startProduct({
      distDir: FIXTURE_DIST,
      environment: { TRUST_PROXY: '127.0.0.1, ::1', CONVERSATIONS_PER_HOUR_PER_IP: '20' },
    });
    const statuses = await rotatingCreates(product.relayUrl);
    expect(statuses).toEqual(Array<number>(23).fill(201));
  });
});

describe('TRUST_PROXY that trusts every address', () => {
  it('0.0.0.0/0,::/0: the relay refuses to start, with one clear line', async () => {
    // Started anyway, it would let a visitor sent straight to it choose its quota key: stopped, and the test fails.
    const started = startRelayProcess({ TRUST_PROXY: '0.0.0.0/0,::/0' }).then(async (relay) => {
      await relay.stop();
      return relay;
    });
    await expect(started).rejects.toThrow(
      /relay exited with 1 before listening:[\s\S]*TRUST_PROXY: 0\.0\.0\.0\/0,::\/0 covers every IPv4 address, so it would believe X-Forwarded-For from every peer/,
    );
    // A relay process's start is bounded at 20 s by startRelayProcess; the test's own bound leaves room for it.
  }, 30_000);
});
