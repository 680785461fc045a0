import { describe, expect, it } from 'vitest';
import { fetchConfiguration, RETRY_DELAYS_MS } from '../../../src/loader/fetch-configuration.ts';
import { refusalFor } from '../../../src/loader/host-check.ts';
import type { WebchatConfiguration } from '../../../src/shared/configuration.ts';

const configuration: WebchatConfiguration = {
  client_id: 'demo-client',
  is_active: true,
  domains: ['www.smile-dental.test', '*.smile-dental.test'],
  logo_url: null,
  icon_color: '#0f766e',
  icon_opacity: 90,
  bot_name: 'Aimee',
  google_tag_id: null,
};

/** A fetch that answers from a script of outcomes, and records what it was asked. */
function scriptedFetch(outcomes: Array<Response | Error>) {
  const calls: string[] = [];
  const fetchImpl = (async (input: RequestInfo | URL) => {
    calls.push(String(input));
    const outcome = outcomes.shift();
    if (outcome === undefined || outcome instanceof Error) throw outcome ?? new TypeError('no more answers');
    return outcome;
  }) as typeof fetch;
  return { fetchImpl, calls };
}
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const waits: number[] = [];
const wait = async (ms: number) => void waits.push(ms);

describe('fetchConfiguration', () => {
  it('fetches and parses the configuration', async () => {
    const { fetchImpl, calls } = scriptedFetch([json(configuration)]);
    expect(await fetchConfiguration('https://relay.example', 'demo client', fetchImpl, wait)).toEqual(configuration);
    expect(calls).toEqual(['https://relay.example/v1/webchat-configuration?client_id=demo%20client']);
  });

  it('retries network failures and 5xx with backoff, then succeeds', async () => {
    waits.length = 0;
    const { fetchImpl, calls } = scriptedFetch([new TypeError('offline'), json({}, 503), json(configuration)]);
    expect(await fetchConfiguration('https://relay.example', 'demo-client', fetchImpl, wait)).toEqual(configuration);
    expect(calls).toHaveLength(3);
    expect(waits).toEqual(RETRY_DELAYS_MS);
  });

  it('gives up after a couple of retries', async () => {
    const { fetchImpl, calls } = scriptedFetch([new TypeError('x'), new TypeError('x'), new TypeError('x'), json(configuration)]);
    expect(await fetchConfiguration('https://relay.example', 'demo-client', fetchImpl, wait)).toBe('the configuration could not be fetched');
    expect(calls).toHaveLength(RETRY_DELAYS_MS.length + 1);
  });

  it.each([
    ['an unknown client id (no retry)', [json({ error: {} }, 404)], /no configuration/],
    ['a refusal (no retry)', [json({ error: {} }, 403)], /answered 403/],
    ['a malformed answer', [json({ client_id: 'x', is_active: 'yes' })], /malformed/],
    ['an answer that is not JSON', [new Response('<html>')], /could not be fetched/],
  ])('refuses %s', async (_why, outcomes, message) => {
    const { fetchImpl } = scriptedFetch([...outcomes, new TypeError('x'), new TypeError('x')]);
    expect(await fetchConfiguration('https://relay.example', 'demo-client', fetchImpl, wait)).toMatch(message);
  });
});

describe('refusalFor (fail closed)', () => {
  it('allows an active configuration on an allowed host', () => {
    expect(refusalFor(configuration, 'www.smile-dental.test')).toBeNull();
    expect(refusalFor(configuration, 'booking.smile-dental.test')).toBeNull();
  });

  it.each([
    ['inactive', { ...configuration, is_active: false }, 'www.smile-dental.test', 'the chat is not active'],
    ['no domains', { ...configuration, domains: [] }, 'www.smile-dental.test', 'no domains are allowed'],
    ['another host', configuration, 'smile-dental.test.evil.example', 'smile-dental.test.evil.example is not an allowed domain'],
  ])('refuses when %s', (_why, value, host, reason) => {
    expect(refusalFor(value, host)).toBe(reason);
  });
});
