import { describe, expect, it } from 'vitest';
import { isDevelopmentMode, readSettings, SettingsError } from '../../../src/relay/settings.ts';
import { trustProxyWarning } from '../../../src/relay/http/trusted-proxies.ts';

const secret = () => new Uint8Array(32).fill(1);
const STRONG_SECRET = 'pZyV4QI7H4v0fJ+2mQ9sLk3XwB8rT1nE6cYdA5uGh0o=';
/** Everything production needs; each refusal below takes one thing away or makes one thing unsafe. */
const PRODUCTION = {
  HANDLE_SECRET: STRONG_SECRET,
  PUBLIC_ORIGIN: 'https://chat.practice.example',
  UPSTREAM_URL: 'https://api.example.com',
  UPSTREAM_USERNAME: 'u',
  UPSTREAM_PASSWORD: 'p',
};

describe('readSettings', () => {
  it('has documented defaults and embeds the simulator when no upstream is set (development)', () => {
    const settings = readSettings({ NODE_ENV: 'development' }, secret);
    expect(settings).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      upstream: null,
      handleSecretGenerated: true,
      publicOrigin: null,
      development: true,
      configCacheSeconds: 60,
      statusRefreshSeconds: 10,
      requestsPerMinutePerIp: 300,
      conversationsPerHourPerIp: 20,
      messagesPerMinutePerConversation: 20,
      bodyLimitBytes: 16384,
      messageMaxLength: 2000,
      shutdownGraceMs: 10_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5000,
      trustProxy: { hops: 0 },
    });
  });

  it('reads every variable', () => {
    const settings = readSettings(
      {
        PORT: '9000',
        UPSTREAM_URL: 'https://api.example.com/',
        UPSTREAM_USERNAME: 'relay@practice.example',
        UPSTREAM_PASSWORD: 'secret',
        HANDLE_SECRET: STRONG_SECRET,
        PUBLIC_ORIGIN: 'https://chat.practice.example/ignored/path',
        TRUST_PROXY: '10.0.0.0/8, ::1',
        REQUESTS_PER_MINUTE_PER_IP: '10',
        SHUTDOWN_GRACE_MS: '2500',
        STATUS_REFRESH_SECONDS: '0',
        HEADERS_TIMEOUT_MS: '4000',
        REQUEST_TIMEOUT_MS: '20000',
        KEEP_ALIVE_TIMEOUT_MS: '65000',
      },
      secret,
    );
    expect(settings).toMatchObject({
      port: 9000,
      upstream: { url: 'https://api.example.com', username: 'relay@practice.example', password: 'secret' },
      handleSecretGenerated: false,
      publicOrigin: 'https://chat.practice.example',
      trustProxy: { addresses: ['10.0.0.0/8', '::1'] },
      development: false,
      requestsPerMinutePerIp: 10,
      shutdownGraceMs: 2500,
      statusRefreshSeconds: 0,
      headersTimeoutMs: 4000,
      requestTimeoutMs: 20_000,
      keepAliveTimeoutMs: 65_000,
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ UPSTREAM_URL: 'ftp://x' }, 'UPSTREAM_URL'],
    [{ HANDLE_SECRET: 'short' }, 'HANDLE_SECRET'],
    [{ TRUST_PROXY: 'yes please' }, 'TRUST_PROXY'],
    [{ SHUTDOWN_GRACE_MS: '-1' }, 'SHUTDOWN_GRACE_MS'],
    [{ SHUTDOWN_GRACE_MS: '700000' }, 'SHUTDOWN_GRACE_MS'],
    [{ STATUS_REFRESH_SECONDS: '61' }, 'STATUS_REFRESH_SECONDS'],
    [{ HEADERS_TIMEOUT_MS: '0' }, 'HEADERS_TIMEOUT_MS'],
    [{ REQUEST_TIMEOUT_MS: '5 minutes' }, 'REQUEST_TIMEOUT_MS'],
    [{ KEEP_ALIVE_TIMEOUT_MS: '999' }, 'KEEP_ALIVE_TIMEOUT_MS'],
    [
      { HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' },
      'HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS',
    ],
    [{ UPSTREAM_URL: 'https://api.example.com' }, 'go together'],
    [{ ...PRODUCTION, HANDLE_SECRET: undefined }, 'HANDLE_SECRET is required'],
    [
      { ...PRODUCTION, UPSTREAM_URL: undefined, UPSTREAM_USERNAME: undefined, UPSTREAM_PASSWORD: undefined },
      'UPSTREAM_URL, UPSTREAM_USERNAME and UPSTREAM_PASSWORD are required',
    ],
    [{ ...PRODUCTION, UPSTREAM_URL: 'http://api.example.com' }, 'must be https://'],
  ])('refuses %j, naming %s', (environment, named) => {
    expect(() => readSettings(environment, secret)).toThrow(SettingsError);
    expect(() => readSettings(environment, secret)).toThrow(named);
  });

  it('never repeats a password in its messages', () => {
    try {
      readSettings({ UPSTREAM_PASSWORD: 'CANARY-PW', PORT: 'bad' }, secret);
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain('CANARY-PW');
    }
  });
});

describe('safe by default (issue 14, point 3)', () => {
  it.each([undefined, '', 'production', 'Production', 'PRODUCTION', 'prod', 'staging', 'Development', 'dev'])(
    'treats NODE_ENV=%j as production',
    (nodeEnv) => {
      expect(isDevelopmentMode(nodeEnv)).toBe(false);
      // A production start needs everything production needs, whatever the spelling of NODE_ENV.
      expect(() => readSettings({ NODE_ENV: nodeEnv }, secret)).toThrow('HANDLE_SECRET is required');
      expect(readSettings({ NODE_ENV: nodeEnv, ...PRODUCTION }, secret).development).toBe(false);
    },
  );

  it.each(['development', 'test'])('treats NODE_ENV=%s as development', (nodeEnv) => {
    expect(readSettings({ NODE_ENV: nodeEnv }, secret)).toMatchObject({
      development: true,
      handleSecretGenerated: true,
    });
  });

  it('refuses a plain-http upstream that is not loopback in development too, unless ALLOW_PLAIN_HTTP_UPSTREAM says so', () => {
    const plain = {
      NODE_ENV: 'development',
      UPSTREAM_URL: 'http://api.example.com',
      UPSTREAM_USERNAME: 'u',
      UPSTREAM_PASSWORD: 'p',
    };
    expect(() => readSettings(plain, secret)).toThrow('ALLOW_PLAIN_HTTP_UPSTREAM');
    expect(readSettings({ ...plain, ALLOW_PLAIN_HTTP_UPSTREAM: 'true' }, secret).upstream?.url).toBe(
      'http://api.example.com',
    );
    expect(readSettings({ ...plain, UPSTREAM_URL: 'http://127.0.0.1:8788' }, secret).upstream?.url).toBe(
      'http://127.0.0.1:8788',
    );
    expect(() => readSettings({ ...PRODUCTION, UPSTREAM_URL: 'http://api.example.com' }, secret)).toThrow(
      'ALLOW_PLAIN_HTTP_UPSTREAM',
    );
    expect(
      readSettings({ ...PRODUCTION, UPSTREAM_URL: 'http://api.example.com', ALLOW_PLAIN_HTTP_UPSTREAM: '1' }, secret)
        .upstream?.url,
    ).toBe('http://api.example.com');
  });

  it.each([
    ['the same character 32 times', 'k'.repeat(32)],
    ['a run of the alphabet', 'abcdefghijklmnopqrstuvwxyz0123456789'],
    ['a repeated word', 'Password1Password1Password1Password1'],
    ['a counting pattern', '0123456789012345678901234567890123456789'],
  ])('refuses a guessable HANDLE_SECRET: %s', (_, weak) => {
    expect(() => readSettings({ NODE_ENV: 'development', HANDLE_SECRET: weak }, secret)).toThrow(
      'HANDLE_SECRET is too easy to guess',
    );
    expect(() => readSettings({ ...PRODUCTION, HANDLE_SECRET: weak }, secret)).toThrow(
      'HANDLE_SECRET is too easy to guess',
    );
  });

  it('reads UPSTREAM_EVENTS_SECRET (off when unset) and refuses a short or guessable one', () => {
    expect(readSettings({ ...PRODUCTION }, secret).upstreamEventsSecret).toBeNull();
    expect(readSettings({ ...PRODUCTION, UPSTREAM_EVENTS_SECRET: STRONG_SECRET }, secret).upstreamEventsSecret).toBe(
      STRONG_SECRET,
    );
    expect(() => readSettings({ ...PRODUCTION, UPSTREAM_EVENTS_SECRET: 'short' }, secret)).toThrow(
      'UPSTREAM_EVENTS_SECRET: must be at least 32 characters',
    );
    expect(() => readSettings({ ...PRODUCTION, UPSTREAM_EVENTS_SECRET: 'a'.repeat(40) }, secret)).toThrow(
      'UPSTREAM_EVENTS_SECRET is too easy to guess',
    );
  });

  it('accepts a random secret (openssl rand -base64 32) and a long passphrase', () => {
    expect(readSettings({ ...PRODUCTION }, secret).handleSecretGenerated).toBe(false);
    expect(
      readSettings({ ...PRODUCTION, HANDLE_SECRET: 'correct horse battery staple, then a fjord quiz' }, secret)
        .handleSecretGenerated,
    ).toBe(false);
  });

  it('never repeats a refused secret in its message', () => {
    expect(() => readSettings({ NODE_ENV: 'test', HANDLE_SECRET: 'CANARY'.repeat(6) }, secret)).toThrow(SettingsError);
    try {
      readSettings({ NODE_ENV: 'test', HANDLE_SECRET: 'CANARY'.repeat(6) }, secret);
    } catch (error) {
      expect(String(error)).not.toContain('CANARY');
    }
  });
});

describe('PUBLIC_ORIGIN (issue 14, point 2)', () => {
  it('is required in production', () => {
    expect(() => readSettings({ ...PRODUCTION, PUBLIC_ORIGIN: undefined }, secret)).toThrow(
      'PUBLIC_ORIGIN is required',
    );
  });

  it('must be https in production (plain http only for loopback)', () => {
    expect(() => readSettings({ ...PRODUCTION, PUBLIC_ORIGIN: 'http://chat.practice.example' }, secret)).toThrow(
      'PUBLIC_ORIGIN must be https://',
    );
    expect(readSettings({ ...PRODUCTION, PUBLIC_ORIGIN: 'http://127.0.0.1:8787' }, secret).publicOrigin).toBe(
      'http://127.0.0.1:8787',
    );
  });

  it('may be left out in development, where the relay serves only loopback Host names', () => {
    expect(readSettings({ NODE_ENV: 'development' }, secret).publicOrigin).toBeNull();
  });
});

describe('TRUST_PROXY (issue 18, point 6)', () => {
  const trustProxy = (value: string) => readSettings({ NODE_ENV: 'test', TRUST_PROXY: value }, secret).trustProxy;

  it.each([
    ['false', { hops: 0 }],
    ['0', { hops: 0 }],
    ['1', { hops: 1 }],
    [' 2 ', { hops: 2 }],
    ['10.0.0.0/8', { addresses: ['10.0.0.0/8'] }],
    ['10.0.0.0/8, 127.0.0.1, ::1', { addresses: ['10.0.0.0/8', '127.0.0.1', '::1'] }],
    ['192.168.0.0/16,fd00::/8,[2001:db8::1]', { addresses: ['192.168.0.0/16', 'fd00::/8', '[2001:db8::1]'] }],
    ['::ffff:10.0.0.0/104', { addresses: ['::ffff:10.0.0.0/104'] }],
  ])('reads %j', (value, expected) => {
    expect(trustProxy(value)).toEqual(expected);
  });

  it('trusts no proxy when unset or empty', () => {
    expect(readSettings({ NODE_ENV: 'test' }, secret).trustProxy).toEqual({ hops: 0 });
    expect(readSettings({ NODE_ENV: 'test', TRUST_PROXY: '' }, secret).trustProxy).toEqual({ hops: 0 });
  });

  it('refuses true (which would believe every peer), saying what to give instead', () => {
    expect(() => trustProxy('true')).toThrow(SettingsError);
    expect(() => trustProxy('true')).toThrow(
      /TRUST_PROXY: true would believe X-Forwarded-For from every peer.*number of proxies.*\(e\.g\. 1\).*addresses/,
    );
  });

  it.each([
    'yes please',
    '1.5',
    '-1',
    '33',
    '10.0.0.0/33',
    '::1/129',
    '10.0.0/8',
    '10.0.0.0/8/8',
    '10.0.0.0/x',
    '10.0.0.0/8,',
    'localhost',
    'fe80::1%eth0',
    '*',
    '10.0.0.0/8, 1',
  ])('refuses %j, naming TRUST_PROXY', (value) => {
    expect(() => trustProxy(value)).toThrow(SettingsError);
    expect(() => trustProxy(value)).toThrow('TRUST_PROXY');
  });
});

describe('TRUST_PROXY that covers every address', () => {
  const trustProxy = (value: string) => readSettings({ NODE_ENV: 'test', TRUST_PROXY: value }, secret).trustProxy;

  it.each([
    '0.0.0.0/0',
    '::/0',
    '0.0.0.0/0,::/0',
    '0.0.0.0/1, 128.0.0.0/1',
    '128.0.0.0/1,0.0.0.0/2,64.0.0.0/2',
    '::/1, 8000::/1',
    '::ffff:0:0/96',
    '::ffff:0.0.0.0/96',
    '0.0.0.0/1, ::ffff:128.0.0.0/97',
    '10.0.0.0/8, 0.0.0.0/0',
    // IPv6 networks that stand for every IPv4 host: IPv4-compatible, NAT64 (well-known and local-use), 6to4.
    '::/96',
    '64:ff9b::/96',
    '64:ff9b::/97, 64:ff9b::8000:0/97',
    '64:ff9b:1::/48',
    '64:ff9b:1:2:3:4::/96',
    '2002::/16',
    '2002::/17, 2002:8000::/17',
    '2000::/3',
    '0.0.0.0/1, 2002:8000::/17',
  ])('refuses %j at start, saying why', (value) => {
    expect(() => trustProxy(value)).toThrow(SettingsError);
    expect(() => trustProxy(value)).toThrow(
      /TRUST_PROXY: .* covers every IPv[46] address, so it would believe X-Forwarded-For from every peer/,
    );
  });

  it('says which IPv6 networks count as IPv4 hosts when one of them made the list cover every IPv4 address', () => {
    expect(() => trustProxy('10.0.0.0/8, 64:ff9b::/96')).toThrow(
      /covers every IPv4 address, [\s\S]* IPv6 networks that stand for IPv4 hosts count as those hosts: ::ffff:0:0\/96, ::\/96, 64:ff9b::\/96, 64:ff9b:1::\/48, 2002::\/16\./,
    );
  });

  it.each([
    '0.0.0.0/1',
    '10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16',
    '8000::/1',
    'fc00::/7, 10.0.0.0/8',
    // A proxy reached through NAT64 or 6to4 is one IPv4 host.
    '64:ff9b::10.0.0.5',
    '2002:a00:5::/48',
  ])('accepts %j, which leaves addresses out', (value) => {
    expect(trustProxy(value)).toEqual({ addresses: value.split(',').map((entry) => entry.trim()) });
  });

  it("warns about a very broad list, and not about a load balancer's network", () => {
    expect(trustProxyWarning({ addresses: ['0.0.0.0/1'] })).toMatch(/^TRUST_PROXY trusts a very broad range/);
    expect(trustProxyWarning({ addresses: ['4000::/3'] })).toMatch(/^TRUST_PROXY trusts a very broad range/);
    // Half of every IPv4 host, written in NAT64's or 6to4's IPv6 form.
    expect(trustProxyWarning({ addresses: ['64:ff9b::/97'] })).toMatch(/^TRUST_PROXY trusts a very broad range/);
    expect(trustProxyWarning({ addresses: ['2002::/17'] })).toMatch(/^TRUST_PROXY trusts a very broad range/);
    expect(trustProxyWarning({ addresses: ['8.0.0.0/6'] })).toMatch(/^TRUST_PROXY trusts a very broad range/);
    expect(
      trustProxyWarning({
        addresses: [
          '10.0.0.0/8',
          '127.0.0.1',
          '172.16.0.0/12',
          '192.168.0.0/16',
          'fc00::/7',
          '::1',
          '64:ff9b::a00:0/104',
        ],
      }),
    ).toBeNull();
    expect(trustProxyWarning({ hops: 1 })).toBeNull();
  });
});
