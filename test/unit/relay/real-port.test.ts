// The relay over a real port, talking to the simulator over real HTTP.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_DIST, startProduct } from '../../support/product.ts';
import { bearer, MESSAGES } from '../../support/conversation-calls.ts';

let product: Awaited<ReturnType<typeof startProduct>>;
beforeAll(async () => {
  product = await startProduct({ distDir: FIXTURE_DIST });
});
afterAll(() => product?.close());

const json = { 'Content-Type': 'application/json' };

describe('relay on a real port', () => {
  it('answers health, configuration and a whole conversation', async () => {
    expect((await fetch(`${product.relayUrl}/healthz`)).status).toBe(200);
    const configuration = await (
      await fetch(`${product.relayUrl}/v1/webchat-configuration?client_id=demo-client`)
    ).json();
    expect(configuration.bot_name).toBe('Aimee');

    const origin = { ...json, Origin: product.relayUrl };
    const created = await fetch(`${product.relayUrl}/v1/conversations`, {
      method: 'POST',
      headers: origin,
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    expect(created.status).toBe(201);
    const { conversation } = await created.json();
    const sent = await fetch(`${product.relayUrl}${MESSAGES}`, {
      method: 'POST',
      headers: { ...origin, 'Idempotency-Key': 'real-port-0001', ...bearer(conversation) },
      body: JSON.stringify({ text: 'Can I book an appointment?' }),
    });
    expect(sent.status).toBe(201);
  });

  it('refuses a cross-origin conversation call over the network too', async () => {
    const response = await fetch(`${product.relayUrl}/v1/conversations`, {
      method: 'POST',
      headers: { ...json, Origin: 'https://evil.example' },
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    expect(response.status).toBe(403);
  });

  it('answers 503 with Retry-After when upstream drops the connection', async () => {
    product.simulator.faults.set({ dropRate: 1, match: /webchat-configuration/ });
    try {
      const response = await fetch(`${product.relayUrl}/v1/webchat-configuration?client_id=demo-inactive`);
      expect(response.status).toBe(503);
      expect(response.headers.get('Retry-After')).not.toBeNull();
      expect((await response.json()).error.code).toBe('upstream_unavailable');
    } finally {
      product.simulator.faults.reset();
    }
  });

  // The base headers go onto Node's ServerResponse on a real server (preset-header.ts), not through Hono as under
  // app.request(): checked here, on the path visitors get. fetch joins a repeated header with ", ", so an exact value
  // also proves it was sent once.
  it('sends the base headers once on answers, errors and pages, and a route’s own value replaces them', async () => {
    const base = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'strict-origin-when-cross-origin' };
    const configuration = await fetch(`${product.relayUrl}/v1/webchat-configuration?client_id=demo-client`);
    expect(Object.fromEntries(configuration.headers)).toMatchObject(base);
    const requestId = configuration.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const { logo_url: logoUrl } = await configuration.json();
    await new Promise((resolve) => setTimeout(resolve, 100)); // the log is written in batches
    expect(product.logLines.some((line) => JSON.parse(line).request_id === requestId)).toBe(true);

    const refused = await fetch(`${product.relayUrl}/v1/conversations`, {
      method: 'POST',
      headers: { ...json, Origin: 'https://evil.example' },
      body: '{}',
    });
    expect(refused.status).toBe(403);
    expect(Object.fromEntries(refused.headers)).toMatchObject({ ...base, 'cache-control': 'no-store' });
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    const frame = await fetch(`${product.relayUrl}/frame?client_id=demo-client`);
    expect(frame.status).toBe(200);
    expect(frame.headers.get('referrer-policy')).toBe('no-referrer');
    expect(frame.headers.get('x-content-type-options')).toBe('nosniff');
    // What a cross-origin isolated practice page needs of a frame it shows (test/browser/strict-pages.test.ts).
    expect([
      frame.headers.get('cross-origin-embedder-policy'),
      frame.headers.get('cross-origin-resource-policy'),
    ]).toEqual(['require-corp', 'cross-origin']);

    const logo = await fetch(logoUrl);
    expect(logo.status).toBe(200);
    expect(logo.headers.get('cache-control')).toMatch(/^(public, )?max-age=\d+/);
    expect(logo.headers.get('cache-control')).not.toContain('no-store');
  });

  // Told apart by request id, not by counting a route's lines: the other tests here make requests too, in whatever
  // order they run. A request's line is written before its answer leaves (request-log.ts), so it is in by now.
  it('logs each request once, with its client_id', async () => {
    const created = await fetch(`${product.relayUrl}/v1/conversations`, {
      method: 'POST',
      headers: { ...json, Origin: product.relayUrl },
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    expect(created.status).toBe(201);
    const configuration = await fetch(`${product.relayUrl}/v1/webchat-configuration?client_id=demo-client`);
    const linesOf = (response: Response) =>
      product.logLines
        .map((line) => JSON.parse(line))
        .filter((line) => line.request_id === response.headers.get('x-request-id'));
    expect(linesOf(created)).toEqual([expect.objectContaining({ route: '/v1/conversations', status: 201 })]);
    expect(linesOf(configuration)).toEqual([
      expect.objectContaining({ route: '/v1/webchat-configuration', client_id: 'demo-client' }),
    ]);
  });

  // A body that declares its length is checked by that length, read by the route straight from Node's request; a
  // chunked one is counted as it comes (body-limit.ts). Both refuse past BODY_LIMIT_BYTES (16 KB) before any upstream
  // call, and a declared length within it still sends.
  it('refuses a message body over the limit, declared or chunked, and sends nothing upstream', async () => {
    const origin = { ...json, Origin: product.relayUrl };
    const created = await fetch(`${product.relayUrl}/v1/conversations`, {
      method: 'POST',
      headers: origin,
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    const { conversation } = await created.json();
    const received = product.simulator.counters.messagesReceived;
    const send = (body: string, headers: Record<string, string>) =>
      new Promise<{ status: number; code: string | undefined }>((resolve, reject) => {
        const outgoing = request(
          `${product.relayUrl}${MESSAGES}`,
          { method: 'POST', headers: { ...origin, ...bearer(conversation), ...headers } },
          (incoming) => {
            let text = '';
            incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
            incoming.on('end', () =>
              resolve({ status: incoming.statusCode ?? 0, code: text ? JSON.parse(text).error?.code : undefined }),
            );
          },
        );
        outgoing.on('error', reject);
        // Written in two parts: chunked, each part is a chunk of its own.
        outgoing.write(body.slice(0, 10));
        outgoing.end(body.slice(10));
      });
    const large = JSON.stringify({ text: 'x'.repeat(17 * 1024) });
    expect(
      await send(large, { 'Content-Length': String(Buffer.byteLength(large)), 'Idempotency-Key': 'real-port-0002' }),
    ).toEqual({ status: 413, code: 'payload_too_large' });
    expect(await send(large, { 'Transfer-Encoding': 'chunked', 'Idempotency-Key': 'real-port-0003' })).toEqual({
      status: 413,
      code: 'payload_too_large',
    });
    expect(product.simulator.counters.messagesReceived).toBe(received);
    const small = JSON.stringify({ text: 'Is parking free?' });
    expect(
      (await send(small, { 'Content-Length': String(Buffer.byteLength(small)), 'Idempotency-Key': 'real-port-0004' }))
        .status,
    ).toBe(201);
    expect((await send(small, { 'Transfer-Encoding': 'chunked', 'Idempotency-Key': 'real-port-0005' })).status).toBe(
      201,
    );
  });
});
