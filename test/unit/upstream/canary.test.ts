// Secrets and health information must never travel inside an error: whatever the upstream echoes back, and
// whatever path fails, no error text or serialisation may contain the password, the token or the message text.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createUpstreamClient } from '../../../src/relay/upstream/client.ts';
import { UpstreamError } from '../../../src/relay/upstream/errors.ts';
import { BASE, fakeUpstream, json, tokenBody, type RecordedRequest } from './fake-upstream.ts';

const PASSWORD = 'CANARY-PASSWORD-7f3a91';
const TOKEN = 'CANARY-TOKEN-b2c4d8';
const TEXT = 'CANARY-MESSAGE-my tooth hurts-55e1';
const SECRETS = [PASSWORD, TOKEN, TEXT, encodeURIComponent(TEXT), new URLSearchParams({ q: TEXT }).toString().slice(2)];

/** An upstream that answers `status` and echoes every secret it saw in its body and headers. */
function echoing(tokenStatus: number, apiStatus: number, mode: 'answer' | 'throw' | 'hang' | 'bad' = 'answer') {
  return fakeUpstream((request: RecordedRequest) => {
    const echo = `${request.body} ${request.headers.get('authorization') ?? ''} ${request.url.href} ${PASSWORD} ${TOKEN} ${TEXT}`;
    const headers = { 'X-Echo': encodeURIComponent(echo), 'Retry-After': '3', Location: `http://evil.test/${TOKEN}` };
    if (request.url.pathname === '/api/oauth/token/') {
      if (tokenStatus === 200) return json(tokenBody(TOKEN, { expires_in: 3600 }));
      return json({ error: 'invalid_grant', error_description: echo }, tokenStatus, headers);
    }
    if (mode === 'throw') throw new TypeError(`fetch failed: ${echo}`);
    if (mode === 'hang') return new Promise<Response>(() => {});
    if (mode === 'bad') return json({ id: echo, text: TEXT, links: { next: `http://evil.test/?t=${TOKEN}` } });
    return json({ detail: echo, code: echo, text: TEXT }, apiStatus, headers);
  });
}

const operations = [
  (c: ReturnType<typeof createUpstreamClient>) => c.sendMessage(`conv ${TEXT}`, TEXT),
  (c: ReturnType<typeof createUpstreamClient>) => c.listConversations({ search: TEXT }),
  (c: ReturnType<typeof createUpstreamClient>) => c.updateConversation('c1', { subject: TEXT }),
  (c: ReturnType<typeof createUpstreamClient>) => c.getWebchatConfiguration(TEXT),
];

const cases: [string, number, number, 'answer' | 'throw' | 'hang' | 'bad'][] = [
  ['token 400', 400, 200, 'answer'],
  ['token 401', 401, 200, 'answer'],
  ['token 429', 429, 200, 'answer'],
  ['token 500', 500, 200, 'answer'],
  ...[302, 400, 401, 403, 404, 409, 422, 429, 500, 503].map(
    (s) => [`api ${s}`, 200, s, 'answer'] as [string, number, number, 'answer'],
  ),
  ['network failure', 200, 0, 'throw'],
  ['timeout', 200, 0, 'hang'],
  ['bad response', 200, 200, 'bad'],
];

function assertClean(error: unknown) {
  expect(error).toBeInstanceOf(UpstreamError);
  const views = [
    (error as Error).message,
    String(error),
    JSON.stringify(error),
    inspect(error, { depth: 10, showHidden: true }),
    (error as Error).stack ?? '',
  ];
  for (const view of views) for (const secret of SECRETS) expect(view).not.toContain(secret);
}

describe('canary: no secret or message text in any error', () => {
  it.each(cases)('%s', async (_name, tokenStatus, apiStatus, mode) => {
    for (const operation of operations) {
      const fake = echoing(tokenStatus, apiStatus, mode);
      const client = createUpstreamClient({
        baseUrl: BASE,
        username: 'canary@x.example',
        password: PASSWORD,
        fetch: fake.fetch,
        timeoutMs: 30,
      });
      const error = await operation(client).then(
        () => new Error('expected a failure'),
        (e: unknown) => e,
      );
      assertClean(error);
      // Second attempt goes through the token backoff path for token failures.
      assertClean(await operation(client).catch((e: unknown) => e));
    }
  });

  it('a forged cross-origin next link: bad response, no token sent there, nothing leaked', async () => {
    const fake = fakeUpstream((request) => {
      if (request.url.pathname === '/api/oauth/token/') return json(tokenBody(TOKEN));
      return json({
        meta: { page: 1, page_total: 2, page_size: 1, results_total: 2 },
        links: { previous: null, self: request.url.href, next: `http://evil.test/api/calls/?page=2&t=${TOKEN}` },
        results: [],
      });
    });
    const client = createUpstreamClient({ baseUrl: BASE, username: 'u', password: PASSWORD, fetch: fake.fetch });
    const error = await (async () => {
      for await (const _ of client.walkCalls()) void _;
    })().catch((e: unknown) => e);
    assertClean(error);
    expect((error as UpstreamError).code).toBe('upstream_bad_response');
    expect(fake.requests.some((r) => r.url.host === 'evil.test')).toBe(false);
  });

  it('the client exposes no token and no credentials', async () => {
    const fake = fakeUpstream(() => json(tokenBody(TOKEN)));
    const client = createUpstreamClient({ baseUrl: BASE, username: 'u', password: PASSWORD, fetch: fake.fetch });
    const seen = inspect(client, { depth: 10, showHidden: true }) + JSON.stringify(client);
    for (const secret of [PASSWORD, TOKEN]) expect(seen).not.toContain(secret);
    expect(Object.keys(client)).not.toContain('getToken');
  });

  it('a bad base URL fails at construction without repeating it', () => {
    expect(() =>
      createUpstreamClient({ baseUrl: `https://u:${PASSWORD}@upstream.test`, username: 'u', password: 'p' }),
    ).toThrow(/without credentials/);
    try {
      createUpstreamClient({ baseUrl: `not a url ${PASSWORD}`, username: 'u', password: 'p' });
    } catch (error) {
      expect(String(error)).not.toContain(PASSWORD);
    }
  });
});
