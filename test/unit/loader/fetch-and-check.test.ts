import { describe, expect, it } from 'vitest';
import { fetchConfiguration, RETRY_DELAYS_MS } from '../../../src/loader/fetch-configuration.ts';
import { refusalFor } from '../../../src/loader/host-check.ts';
import type { ConfigurationAnswer } from '../../../src/shared/launcher-look.ts';

const configuration: ConfigurationAnswer = {
  client_id: 'demo-client',
  is_active: true,
  domains: ['www.smile-dental.test', '*.smile-dental.test'],
  logo_url: null,
  icon_color: '#0f766e',
  icon_opacity: 90,
  bot_name: 'Aimee',
  google_tag_id: null,
  launcher: {
    background: '#0f766e',
    color: '#ffffff',
    opacity: 0.9,
    label: 'Chat with Aimee',
    locale: 'en',
    dir: 'ltr',
  },
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
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const waits: number[] = [];
const wait = async (ms: number) => void waits.push(ms);

describe('fetchConfiguration', () => {
  it('fetches and parses the configuration', async () => {
    const { fetchImpl, calls } = scriptedFetch([json(configuration)]);
    // The client id has already matched CLIENT_ID_PATTERN (script-tag.ts): it needs no escaping.
    expect(await fetchConfiguration('https://relay.example', 'demo.client_1', 'zh_TW', fetchImpl, wait)).toEqual(
      configuration,
    );
    expect(calls).toEqual(['https://relay.example/v1/webchat-configuration?client_id=demo.client_1&locale=zh_TW']);
  });

  it('retries network failures and 5xx with backoff, then succeeds', async () => {
    waits.length = 0;
    const { fetchImpl, calls } = scriptedFetch([new TypeError('offline'), json({}, 503), json(configuration)]);
    expect(await fetchConfiguration('https://relay.example', 'demo-client', '', fetchImpl, wait)).toEqual(
      configuration,
    );
    expect(calls).toHaveLength(3);
    expect(waits).toEqual(RETRY_DELAYS_MS);
  });

  it('gives up after a couple of retries', async () => {
    const { fetchImpl, calls } = scriptedFetch([
      new TypeError('x'),
      new TypeError('x'),
      new TypeError('x'),
      json(configuration),
    ]);
    expect(await fetchConfiguration('https://relay.example', 'demo-client', '', fetchImpl, wait)).toBe(
      'the configuration could not be fetched',
    );
    expect(calls).toHaveLength(RETRY_DELAYS_MS.length + 1);
  });

  it.each([
    ['an unknown client id (no retry)', [json({ error: {} }, 404)], /no configuration/],
    ['a refusal (no retry)', [json({ error: {} }, 403)], /answered 403/],
    ['a malformed answer', [json({ client_id: 'x', is_active: 'yes' })], /malformed/],
    ['an answer that is not JSON', [new Response('<html>')], /could not be fetched/],
    [
      'a colour that could leave its CSS declaration',
      [json({ ...configuration, launcher: { ...configuration.launcher, background: 'red;background:url(//x)' } })],
      /malformed/,
    ],
    [
      'a glyph colour that is not a hex colour',
      [json({ ...configuration, launcher: { ...configuration.launcher, color: 'var(--x)' } })],
      /malformed/,
    ],
    [
      'an opacity that is not a number',
      [json({ ...configuration, launcher: { ...configuration.launcher, opacity: '1}*{x:y' } })],
      /malformed/,
    ],
    ['an answer without the launcher look', [json({ ...configuration, launcher: undefined })], /malformed/],
    [
      'an answer without a label',
      [json({ ...configuration, launcher: { ...configuration.launcher, label: undefined } })],
      /malformed/,
    ],
    [
      'a label that is not text',
      [json({ ...configuration, launcher: { ...configuration.launcher, label: { en: 'Chat' } } })],
      /malformed/,
    ],
  ])('refuses %s', async (_why, outcomes, message) => {
    const { fetchImpl } = scriptedFetch([...outcomes, new TypeError('x'), new TypeError('x')]);
    expect(await fetchConfiguration('https://relay.example', 'demo-client', '', fetchImpl, wait)).toMatch(message);
  });
});

describe('the logo (served by the relay itself)', () => {
  it.each([
    ["the relay's own logo", 'https://relay.example/v1/logo?v=1', 'https://relay.example/v1/logo?v=1'],
    ['another host', 'https://cdn.example/logo.png', null],
    ['a host that only starts like the relay', 'https://relay.example.evil.example/logo.png', null],
    ['a relay address without a path', 'https://relay.example', null],
    ['a script address', 'javascript:alert(1)//https://relay.example/', null],
    ['not a string', 42, null],
  ])('keeps %s only when it starts with the relay origin and a slash', async (_why, logo, expected) => {
    const { fetchImpl } = scriptedFetch([json({ ...configuration, logo_url: logo })]);
    expect(await fetchConfiguration('https://relay.example', 'demo-client', '', fetchImpl, wait)).toMatchObject({
      logo_url: expected,
    });
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
    [
      'another host',
      configuration,
      'smile-dental.test.evil.example',
      'smile-dental.test.evil.example is not an allowed domain',
    ],
    // CSP host-sources cannot carry the trailing dot, so the relay's frame-ancestors would refuse the panel.
    ['a trailing-dot host', configuration, 'www.smile-dental.test.', 'www.smile-dental.test. is not an allowed domain'],
    [
      'a trailing-dot subdomain',
      configuration,
      'booking.smile-dental.test.',
      'booking.smile-dental.test. is not an allowed domain',
    ],
    [
      "a host that only ends like a wildcard's base",
      configuration,
      'evilsmile-dental.test',
      'evilsmile-dental.test is not an allowed domain',
    ],
    [
      "the wildcard's base itself",
      { ...configuration, domains: ['*.smile-dental.test'] },
      'smile-dental.test',
      'smile-dental.test is not an allowed domain',
    ],
    [
      'a bare star entry',
      { ...configuration, domains: ['*', '*.'] },
      'www.smile-dental.test',
      'www.smile-dental.test is not an allowed domain',
    ],
  ])('refuses when %s', (_why, value, host, reason) => {
    expect(refusalFor(value, host)).toBe(reason);
  });
});
