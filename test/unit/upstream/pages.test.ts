import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UpstreamError } from '../../../src/relay/upstream/errors.ts';
import { createUpstreamHttp } from '../../../src/relay/upstream/http.ts';
import { collectAll, walkPages } from '../../../src/relay/upstream/pages.ts';
import { createTokenManager } from '../../../src/relay/upstream/token-manager.ts';
import { BASE, json, tokenIssuingUpstream, type Handler } from './fake-upstream.ts';

const item = z.object({ n: z.number() });

function envelope(pageNo: number, next: string | null, results: unknown[] = [{ n: pageNo }]) {
  return {
    meta: { page: pageNo, page_total: 3, page_size: 1, results_total: 3 },
    links: { previous: null, self: `${BASE}/api/items/?page=${pageNo}`, next },
    results,
  };
}

function setup(api: Handler) {
  const fake = tokenIssuingUpstream(api);
  const tokens = createTokenManager({ baseUrl: BASE, username: 'u', password: 'p', fetch: fake.fetch });
  return { fake, http: createUpstreamHttp({ baseUrl: BASE, tokens, fetch: fake.fetch }) };
}

const pageOf = (r: { url: URL }) => Number(r.url.searchParams.get('page') ?? '1');

describe('walkPages', () => {
  it('follows links.next until null, keeping the first query', async () => {
    const { fake, http } = setup((r) => {
      const p = pageOf(r);
      return json(envelope(p, p < 3 ? `${BASE}/api/items/?page=${p + 1}&page_size=1` : null));
    });
    const items = await collectAll(walkPages(http, '/api/items/', { page_size: 1 }, item));
    expect(items).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(fake.apiRequests().map((r) => r.url.search)).toEqual([
      '?page_size=1',
      '?page=2&page_size=1',
      '?page=3&page_size=1',
    ]);
  });

  it('stops a loop: a next link seen before is a bad response', async () => {
    const { fake, http } = setup((r) =>
      json(envelope(pageOf(r), `${BASE}/api/items/?page=${pageOf(r) === 1 ? 2 : 1}`)),
    );
    const walk = collectAll(walkPages(http, '/api/items/', {}, item));
    await expect(walk).rejects.toBeInstanceOf(UpstreamError);
    await expect(walk).rejects.toMatchObject({ code: 'upstream_bad_response' });
    expect(fake.apiRequests().length).toBeLessThanOrEqual(3);
  });

  it('stops a loop: more than maxPages is a bad response', async () => {
    const { fake, http } = setup((r) => json(envelope(pageOf(r), `${BASE}/api/items/?page=${pageOf(r) + 1}`)));
    await expect(collectAll(walkPages(http, '/api/items/', {}, item, { maxPages: 5 }))).rejects.toMatchObject({
      code: 'upstream_bad_response',
    });
    expect(fake.apiRequests()).toHaveLength(5);
  });

  it('rejects a page whose item does not match the schema', async () => {
    const { http } = setup(() => json(envelope(1, null, [{ n: 'one' }])));
    await expect(collectAll(walkPages(http, '/api/items/', {}, item))).rejects.toMatchObject({
      code: 'upstream_bad_response',
    });
  });

  it('does not send the token to a forged cross-origin next link', async () => {
    const { fake, http } = setup(() => json(envelope(1, 'http://attacker.test/steal?page=2')));
    await expect(collectAll(walkPages(http, '/api/items/', {}, item))).rejects.toMatchObject({
      code: 'upstream_bad_response',
    });
    expect(fake.requests.every((r) => r.url.host === 'upstream.test')).toBe(true);
  });
});
