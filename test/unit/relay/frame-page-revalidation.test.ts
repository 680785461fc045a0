// The frame page is kept by the visitor's browser and confirmed before each use (src/relay/frame/page-validator.ts):
// a second open on another page of the same site costs a "not modified", not the panel's script again, and a page
// kept under one configuration, language or policy is never confirmed for another.
import { afterAll, describe, expect, it } from 'vitest';
import { isNotModified } from '../../../src/relay/frame/page-validator.ts';
import { createRelayHarness, RELAY_ORIGIN } from './relay-harness.ts';

const harness = createRelayHarness();
afterAll(() => harness.close());

const framePage = (query: string, headers: Record<string, string> = {}) =>
  harness.app.request(`${RELAY_ORIGIN}/frame?${query}`, { headers: { 'Accept-Encoding': 'br', ...headers } });

describe('revalidating the frame page', () => {
  it('is kept privately, revalidated on every use, and confirmed with 304 and the same policy', async () => {
    const first = await framePage('client_id=smile-dental');
    expect(first.status).toBe(200);
    expect(first.headers.get('Cache-Control')).toBe('private, no-cache');
    const validator = first.headers.get('ETag')!;
    expect(validator).toMatch(/^W\/"[\w-]{43}"$/);

    const again = await framePage('client_id=smile-dental', { 'If-None-Match': validator });
    expect(again.status).toBe(304);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    expect(again.headers.get('ETag')).toBe(validator);
    expect(again.headers.get('Content-Security-Policy')).toBe(first.headers.get('Content-Security-Policy'));
  });

  it.each([
    ['another practice', 'client_id=demo-client'],
    ['another language', 'client_id=smile-dental&locale=es'],
    ['an inactive practice', 'client_id=demo-inactive'],
  ])('is not confirmed for %s: the whole page comes back', async (_what, query) => {
    const kept = (await framePage('client_id=smile-dental')).headers.get('ETag')!;
    const other = await framePage(query, { 'If-None-Match': kept });
    expect(other.status).toBe(200);
    expect(other.headers.get('ETag')).not.toBe(kept);
    expect((await other.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });
});

describe('isNotModified', () => {
  const validator = 'W/"abc"';
  it.each([
    ['W/"abc"', true],
    ['"abc"', true],
    ['"x", W/"abc"', true],
    ['*', true],
    ['W/"abd"', false],
    ['abc', false],
    ['', false],
  ])('%s: %s', (header, expected) => {
    expect(isNotModified(header, validator)).toBe(expected);
  });
});
