// The relay's own transport against real HTTP servers on 127.0.0.1: answers, keep-alive, timeouts, refused
// connections, redirects and a foreign origin each come back as the client expects.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPoolTransport, type PoolTransport } from '../../../src/relay/upstream/pool-transport.ts';
import { UpstreamError } from '../../../src/relay/upstream/errors.ts';
import { createUpstreamClient } from '../../../src/relay/upstream/client.ts';

let server: Server | undefined;
let pool: PoolTransport | undefined;
afterEach(async () => {
  await pool?.close();
  await new Promise<void>((done) => (server ? (server.closeAllConnections(), server.close(() => done())) : done()));
  server = undefined;
  pool = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof UpstreamError ? error.code : String(error)),
  );

describe('the pool transport', () => {
  it('sends method, path, query, headers and body, and reads status, Retry-After and the whole body', async () => {
    const seen: { method?: string; url?: string; auth?: string; body?: string; sockets: Set<unknown> } = {
      sockets: new Set(),
    };
    const origin = await serve((req, res) => {
      seen.sockets.add(req.socket);
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        Object.assign(seen, { method: req.method, url: req.url, auth: req.headers.authorization, body });
        res.writeHead(429, { 'Retry-After': '7', 'Content-Type': 'application/json' }).end('{"detail":"slow down"}');
      });
    });
    pool = createPoolTransport({ origin, timeoutMs: 2000 });
    const answer = await pool.transport({
      method: 'POST',
      url: new URL(`${origin}/api/conversations/c1/messages/?after=3`),
      route: '/api/conversations/{id}/messages/',
      headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
      body: '{"text":"hi"}',
    });
    expect(answer).toEqual({ status: 429, retryAfter: '7', text: '{"detail":"slow down"}' });
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/api/conversations/c1/messages/?after=3',
      auth: 'Bearer t',
      body: '{"text":"hi"}',
    });
    // Keep-alive: six requests one after the other share a connection or two, not one each.
    for (let i = 0; i < 5; i++)
      await pool.transport({ method: 'GET', url: new URL(`${origin}/x`), route: '/x', headers: {} });
    expect(seen.sockets.size).toBeLessThanOrEqual(2);
  });

  it('does not follow a redirect: the 3xx comes back as it is', async () => {
    const origin = await serve((_req, res) => res.writeHead(302, { Location: 'http://elsewhere.example/' }).end());
    pool = createPoolTransport({ origin, timeoutMs: 2000 });
    const answer = await pool.transport({
      method: 'GET',
      url: new URL(`${origin}/a`),
      route: '/a',
      headers: { Authorization: 'Bearer t' },
    });
    expect(answer.status).toBe(302);
  });

  it('answers upstream_timeout when the headers do not come in time, and when the body stalls', async () => {
    const origin = await serve((req, res) => {
      if (req.url === '/stall-body') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"partial":');
      }
      // Otherwise never answers.
    });
    pool = createPoolTransport({ origin, timeoutMs: 150 });
    expect(
      await codeOf(pool.transport({ method: 'GET', url: new URL(`${origin}/never`), route: '/never', headers: {} })),
    ).toBe('upstream_timeout');
    expect(
      await codeOf(
        pool.transport({ method: 'GET', url: new URL(`${origin}/stall-body`), route: '/stall-body', headers: {} }),
      ),
    ).toBe('upstream_timeout');
  });

  it('answers upstream_unavailable when nothing listens', async () => {
    const origin = await serve(() => {});
    await new Promise<void>((done) => server!.close(() => done()));
    server = undefined;
    pool = createPoolTransport({ origin, timeoutMs: 2000 });
    expect(await codeOf(pool.transport({ method: 'GET', url: new URL(`${origin}/a`), route: '/a', headers: {} }))).toBe(
      'upstream_unavailable',
    );
  });

  it('refuses a URL on another origin before sending anything', async () => {
    let requests = 0;
    const origin = await serve((_req, res) => {
      requests += 1;
      res.end('{}');
    });
    pool = createPoolTransport({ origin, timeoutMs: 2000 });
    expect(
      await codeOf(
        pool.transport({
          method: 'GET',
          url: new URL('http://127.0.0.2:1/a'),
          route: '/a',
          headers: { Authorization: 'Bearer t' },
        }),
      ),
    ).toBe('upstream_bad_response');
    expect(requests).toBe(0);
  });

  it('takes a target as a string: sent on its origin with its path and query, refused on any other', async () => {
    const paths: string[] = [];
    const origin = await serve((req, res) => {
      paths.push(req.url ?? '');
      res.end('{}');
    });
    pool = createPoolTransport({ origin, timeoutMs: 2000 });
    const send = (url: string) =>
      pool!.transport({ method: 'GET', url, route: '/a', headers: { Authorization: 'Bearer t' } });
    expect((await send(`${origin}/a/b/?after=3`)).status).toBe(200);
    expect(paths).toEqual(['/a/b/?after=3']);
    // Another origin, and strings that only start like this one's: another port, a longer host, credentials.
    for (const elsewhere of [
      'http://127.0.0.2:1/a',
      `${origin}0/a`,
      `${origin}.evil.test/a`,
      `${origin}@evil.test/a`,
      origin,
    ])
      expect(await codeOf(send(elsewhere))).toBe('upstream_bad_response');
    expect(paths).toHaveLength(1);
  });

  it('rethrows a caller cancellation as it is', async () => {
    const origin = await serve(() => {});
    pool = createPoolTransport({ origin, timeoutMs: 5000 });
    const controller = new AbortController();
    const pending = pool.transport({
      method: 'GET',
      url: new URL(`${origin}/a`),
      route: '/a',
      headers: {},
      signal: controller.signal,
    });
    const reason = new Error('visitor left');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});

describe('the upstream client pool size', () => {
  it('opens at most `connections` sockets to the service, however many calls are in flight', async () => {
    const apiSockets = new Set<unknown>();
    const held: ServerResponse[] = [];
    const calls = 6;
    // Holds each API call until all of them are in (as a slow service would), or, when the pool lets fewer through,
    // until a short pause lets the waiting ones take a freed connection: the test ends either way.
    let pause: ReturnType<typeof setTimeout> | undefined;
    const releaseAll = () => {
      clearTimeout(pause);
      for (const res of held.splice(0)) res.writeHead(503).end();
    };
    const origin = await serve((req, res) => {
      if (req.url?.startsWith('/api/oauth/token/')) {
        req.resume();
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ access_token: 't', expires_in: 3600, token_type: 'Bearer' }));
        return;
      }
      apiSockets.add(req.socket);
      held.push(res);
      clearTimeout(pause);
      if (held.length === calls) releaseAll();
      else pause = setTimeout(releaseAll, 100);
    });
    const client = createUpstreamClient({ baseUrl: origin, username: 'u', password: 'p', connections: 2 });
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: calls }, (_, index) => client.getConversation(`c${index}`)),
      );
      expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
      expect(apiSockets.size).toBeLessThanOrEqual(2);
    } finally {
      await client.close();
    }
  });
});
