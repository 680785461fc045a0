import { describe, expect, it } from 'vitest';
import { authedSimulator } from './helpers.ts';

interface Page {
  meta: { page: number; page_total: number; page_size: number; results_total: number };
  links: { previous: string | null; self: string; next: string | null };
  results: Array<{ id: string; practice: string; status: string; started_at: string }>;
}

describe('GET /api/calls/', async () => {
  const { sim, request } = await authedSimulator();
  const page = async (query: string): Promise<Page> => {
    const response = await request(`/api/calls/${query}`);
    expect(response.status).toBe(200);
    return response.json();
  };
  const granted = sim.seed.grantedPracticeId;
  const other = sim.seed.otherPracticeId;

  it('answers the envelope with the default page size of 50', async () => {
    const body = await page('');
    expect(Object.keys(body).sort()).toEqual(['links', 'meta', 'results']);
    expect(body.meta).toEqual({ page: 1, page_total: 3, page_size: 50, results_total: 130 });
    expect(body.results).toHaveLength(50);
    expect(body.links.previous).toBeNull();
    expect(body.links.self).toBe('http://localhost/api/calls/?page=1');
    expect(body.links.next).toBe('http://localhost/api/calls/?page=2');
  });

  it('shows only the granted practice and the assumed call record (docs/upstream-contract.md)', async () => {
    const body = await page('?page_size=100&page=2');
    expect(body.results.every((call) => call.practice === granted)).toBe(true);
    expect(Object.keys(body.results[0] ?? {}).sort()).toEqual(
      [
        'direction',
        'duration_seconds',
        'id',
        'is_opportunity',
        'organization',
        'practice',
        'started_at',
        'status',
      ].sort(),
    );
  });

  it('accepts page_size 100 and caps larger values at 100', async () => {
    expect((await page('?page_size=100')).meta).toMatchObject({ page_size: 100, page_total: 2 });
    const capped = await page('?page_size=150');
    expect(capped.meta).toMatchObject({ page_size: 100, page_total: 2 });
    expect(capped.results).toHaveLength(100);
  });

  it.each(['0', '-1', '1.5', 'abc', '1e2'])('answers 400 for page_size=%s', async (value) => {
    const response = await request(`/api/calls/?page_size=${value}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid' });
  });

  it('treats empty page and page_size as absent', async () => {
    expect((await page('?page=&page_size=')).meta).toMatchObject({ page: 1, page_size: 50 });
  });

  it.each(['0', '-2', 'x'])('answers 400 for page=%s', async (value) => {
    expect((await request(`/api/calls/?page=${value}`)).status).toBe(400);
  });

  it('walks to the last page by links.next, keeping other query parameters, with absolute URLs', async () => {
    const seen = new Set<string>();
    let url: string | null = 'http://upstream.test/api/calls/?page_size=40&status=answered&unsupported=1';
    let pages = 0;
    let last: Page | undefined;
    while (url) {
      const response = await sim.fetch(url, { headers: { Authorization: await tokenHeader() } });
      expect(response.status).toBe(200);
      last = (await response.json()) as Page;
      for (const call of last.results) seen.add(call.id);
      pages++;
      if (last.links.next) {
        const next = new URL(last.links.next);
        expect(next.origin).toBe('http://upstream.test');
        expect(next.searchParams.get('page_size')).toBe('40');
        expect(next.searchParams.get('status')).toBe('answered');
        expect(next.searchParams.get('unsupported')).toBe('1');
      }
      url = last.links.next;
    }
    expect(last?.links.next).toBeNull();
    expect(last?.links.previous).toBe(
      `http://upstream.test/api/calls/?page_size=40&status=answered&unsupported=1&page=${pages - 1}`,
    );
    expect(pages).toBe(last?.meta.page_total);
    expect(seen.size).toBe(last?.meta.results_total);
  });

  async function tokenHeader(): Promise<string> {
    const response = await sim.fetch('http://upstream.test/api/oauth/token/', {
      method: 'POST',
      body: new URLSearchParams({ username: sim.seed.username, password: sim.seed.password }),
    });
    return `Bearer ${(await response.json()).access_token}`;
  }

  it('answers 404 not_found for a page past the end', async () => {
    const response = await request('/api/calls/?page=4');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found' });
    expect((await request('/api/calls/?page=3')).status).toBe(200);
  });

  it('has page_total 1 for an empty result', async () => {
    const body = await page('?started_at__gte=2099-01-01T00:00:00Z');
    expect(body.meta).toEqual({ page: 1, page_total: 1, page_size: 50, results_total: 0 });
    expect(body.links.next).toBeNull();
  });

  it('filters by practice and practice__in', async () => {
    expect((await page(`?practice=${granted}`)).meta.results_total).toBe(130);
    expect((await page(`?practice__in=${granted}`)).meta.results_total).toBe(130);
  });

  it('answers 403 for a practice the account cannot see', async () => {
    for (const query of [`?practice=${other}`, `?practice__in=${granted},${other}`, '?practice=prc_unknown']) {
      const response = await request(`/api/calls/${query}`);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: 'permission_denied' });
    }
  });

  it('filters by status and time, newest first by default, and orders ascending on request', async () => {
    const missed = await page('?status=missed&page_size=100');
    expect(missed.results.length).toBeGreaterThan(0);
    expect(missed.results.every((call) => call.status === 'missed')).toBe(true);
    expect((await request('/api/calls/?status=lost')).status).toBe(400);

    const all = await page('?page_size=100');
    const times = all.results.map((call) => Date.parse(call.started_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const ascending = await page('?page_size=100&ordering=started_at');
    const ascTimes = ascending.results.map((call) => Date.parse(call.started_at));
    expect(ascTimes).toEqual([...ascTimes].sort((a, b) => a - b));

    const pivot = all.results[9]?.started_at ?? '';
    const newer = await page(`?started_at__gte=${encodeURIComponent(pivot)}`);
    expect(newer.meta.results_total).toBe(10);
    const older = await page(`?started_at__lte=${encodeURIComponent(pivot)}`);
    expect(older.meta.results_total).toBe(121);
    expect((await request('/api/calls/?started_at__gte=yesterday')).status).toBe(400);
  });

  it('seeds 130 calls for the granted practice and 20 for the other, the same every time', async () => {
    expect(sim.store.calls.filter((call) => call.practice === granted)).toHaveLength(130);
    expect(sim.store.calls.filter((call) => call.practice === other)).toHaveLength(20);
    const again = await authedSimulator();
    expect(again.sim.store.calls).toEqual(sim.store.calls);
  });
});
