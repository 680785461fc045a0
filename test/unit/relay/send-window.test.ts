// A message send's window through the relay's own upstream pool, against a real HTTP server on 127.0.0.1: a send that
// hangs is still cut at the window's end, on record for its retry, and a send builds no AbortController (an
// EventTarget with its listener map, the largest single item of a send in the relay's CPU profile).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeliverOnce, SendOutcomeUnknown } from '../../../src/relay/conversations/deliver-once.ts';
import { SendWindow } from '../../../src/relay/conversations/send-window.ts';
import { createUnknownOutcomeStore } from '../../../src/relay/conversations/unknown-outcomes.ts';
import { createUpstreamClient, type UpstreamClient } from '../../../src/relay/upstream/index.ts';

let server: Server | undefined;
let client: UpstreamClient | undefined;
afterEach(async () => {
  await client?.close({ abortInFlight: true });
  await new Promise<void>((done) => (server ? (server.closeAllConnections(), server.close(() => done())) : done()));
  server = client = undefined;
});

/** A service whose sends answer at once, except a text of "hang", which it never answers. */
async function service(): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      if (req.url?.startsWith('/api/oauth/token/')) {
        res.end(JSON.stringify({ access_token: 't', expires_in: 3600, token_type: 'Bearer' }));
        return;
      }
      const { text } = JSON.parse(body) as { text: string };
      if (text === 'hang') return;
      res.writeHead(201).end(
        JSON.stringify({
          id: 'msg_1',
          conversation: 'c1',
          sequence: 1,
          sender: 'visitor',
          author_name: '',
          text,
          created_at: new Date().toISOString(),
        }),
      );
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Runs `work` counting the AbortControllers built meanwhile. */
async function countingAbortControllers<T>(work: () => Promise<T>): Promise<{ value: T; built: number }> {
  const Original = globalThis.AbortController;
  let built = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      built += 1;
    }
  };
  try {
    return { value: await work(), built };
  } finally {
    globalThis.AbortController = Original;
  }
}

describe('the send window', () => {
  it('sends through the pool without an AbortController, and cuts a hung send at its end', async () => {
    const baseUrl = await service();
    client = createUpstreamClient({ baseUrl, username: 'u', password: 'p', timeoutMs: 5000 });
    const outcomes = createUnknownOutcomeStore({});
    const deliverOnce = createDeliverOnce({
      upstream: client,
      outcomes,
      sendWindowMs: 2000,
      settleWindowMs: 0,
      now: Date.now,
    });
    // Warm: the token request and the pool's first connection are not the send's own.
    await deliverOnce('c1', 'key-0', 'warm');
    const sent = await countingAbortControllers(() => deliverOnce('c1', 'key-1', 'hello'));
    expect(sent.value.text).toBe('hello');
    expect(sent.built).toBe(0);

    const failure = await deliverOnce('c1', 'key-2', 'hang').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SendOutcomeUnknown);
    expect(failure).toMatchObject({ cause: { code: 'upstream_timeout' } });
    expect(await outcomes.get('c1', 'key-2')).not.toBeNull();
  });

  it('tells each listener once when it ends, and nothing after it is closed', async () => {
    const ended = new SendWindow(1);
    const heard: unknown[] = [];
    const listener = () => heard.push(ended.reason);
    ended.addEventListener('abort', listener);
    ended.addEventListener('abort', listener);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended.aborted).toBe(true);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ code: 'upstream_timeout' });

    const closed = new SendWindow(1);
    let called = false;
    closed.addEventListener('abort', () => (called = true));
    closed.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed.aborted).toBe(false);
    expect(called).toBe(false);
  });
});
