// REDIS_SENTINELS and the settings that go with it: read into one Sentinel target, or refused at start with a line
// that names the variable and never repeats a password. The target becomes ioredis's own Sentinel options.
import { describe, expect, it } from 'vitest';
import { readSettings, SettingsError } from '../../../src/relay/settings.ts';
import { connectionOptions, type RedisSentinelTarget } from '../../../src/relay/shared-state/redis-target.ts';

const secret = () => new Uint8Array(32).fill(1);
const read = (environment: Record<string, string>) => readSettings({ NODE_ENV: 'test', ...environment }, secret);

describe('REDIS_SENTINELS', () => {
  it('names a Sentinel group, with the defaults for everything else', () => {
    expect(read({ REDIS_SENTINELS: '10.0.0.21:26379, 10.0.0.22:26380,sentinel-3.internal' }).redis).toEqual({
      sentinels: [
        { host: '10.0.0.21', port: 26379 },
        { host: '10.0.0.22', port: 26380 },
        { host: 'sentinel-3.internal', port: 26379 },
      ],
      masterName: 'mymaster',
      username: null,
      password: null,
      sentinelPassword: null,
      tls: false,
      sentinelTls: false,
    });
    expect(read({}).redis).toBeNull();
    expect(read({ REDIS_URL: 'redis://:pw@10.0.0.20:6379' }).redis).toBe('redis://:pw@10.0.0.20:6379');
  });

  it('reads every setting that goes with it; the Sentinels take TLS when the data nodes do, unless told otherwise', () => {
    const all = {
      REDIS_SENTINELS: '[fd00::21]:26379,[fd00::22]',
      REDIS_SENTINEL_MASTER_NAME: 'pwc-relay_1.prod',
      REDIS_USERNAME: 'relay',
      REDIS_PASSWORD: 'data password',
      REDIS_SENTINEL_PASSWORD: 'sentinel password',
      REDIS_TLS: 'true',
    };
    expect(read(all).redis).toEqual({
      sentinels: [
        { host: 'fd00::21', port: 26379 },
        { host: 'fd00::22', port: 26379 },
      ],
      masterName: 'pwc-relay_1.prod',
      username: 'relay',
      password: 'data password',
      sentinelPassword: 'sentinel password',
      tls: true,
      sentinelTls: true,
    });
    expect(read({ ...all, REDIS_SENTINEL_TLS: 'false' }).redis).toMatchObject({ tls: true, sentinelTls: false });
    expect(read({ ...all, REDIS_TLS: '0', REDIS_SENTINEL_TLS: '1' }).redis).toMatchObject({
      tls: false,
      sentinelTls: true,
    });
  });

  it.each([
    ['an empty entry', '10.0.0.21:26379,,10.0.0.22:26379', 'REDIS_SENTINELS: entry 2 is not host:port'],
    ['a port out of range', '10.0.0.21:70000', 'REDIS_SENTINELS: entry 1 is not host:port'],
    ['port 0', '10.0.0.21:0', 'entry 1 is not host:port'],
    ['a port that is not a number', 'sentinel:http', 'entry 1 is not host:port'],
    ['an IPv6 address without brackets', 'fd00::21:26379', 'entry 1 is not host:port'],
    ['a bracketed address that is not IPv6', '[10.0.0.1]:26379', 'entry 1 is not host:port'],
    ['an unclosed bracket', '[fd00::21:26379', 'entry 1 is not host:port'],
    ['a URL', 'redis://10.0.0.21:26379', 'entry 1 is not host:port'],
    ['a space inside a name', 'sentinel one:26379', 'entry 1 is not host:port'],
    ['too many entries', Array.from({ length: 17 }, (_, i) => `10.0.0.${i}:26379`).join(','), 'at most 16'],
  ])('refuses %s', (_name, value, message) => {
    expect(() => read({ REDIS_SENTINELS: value })).toThrow(SettingsError);
    expect(() => read({ REDIS_SENTINELS: value })).toThrow(message);
  });

  it.each([
    [{ REDIS_URL: 'redis://10.0.0.20:6379', REDIS_SENTINELS: '10.0.0.21:26379' }, 'REDIS_URL and REDIS_SENTINELS'],
    [{ REDIS_URL: 'redis://10.0.0.20:6379', REDIS_PASSWORD: 'pw' }, 'REDIS_PASSWORD goes with REDIS_SENTINELS'],
    [{ REDIS_SENTINEL_MASTER_NAME: 'mymaster' }, 'REDIS_SENTINEL_MASTER_NAME goes with REDIS_SENTINELS'],
    [{ REDIS_TLS: 'true', REDIS_SENTINEL_PASSWORD: 'pw' }, 'REDIS_SENTINEL_PASSWORD, REDIS_TLS go with'],
    [{ REDIS_SENTINELS: '10.0.0.21:26379', REDIS_USERNAME: 'relay' }, 'REDIS_USERNAME needs REDIS_PASSWORD'],
    [{ REDIS_SENTINELS: '10.0.0.21:26379', REDIS_SENTINEL_MASTER_NAME: 'my master' }, 'REDIS_SENTINEL_MASTER_NAME:'],
    [
      { REDIS_SENTINELS: '10.0.0.21:26379', REDIS_SENTINEL_MASTER_NAME: 'x'.repeat(101) },
      'REDIS_SENTINEL_MASTER_NAME:',
    ],
    [{ REDIS_SENTINELS: '10.0.0.21:26379', REDIS_TLS: 'yes' }, 'REDIS_TLS: must be true or false'],
    [{ REDIS_SENTINELS: '10.0.0.21:26379', REDIS_SENTINEL_TLS: 'on' }, 'REDIS_SENTINEL_TLS: must be true or false'],
    [{ REDIS_SENTINELS: '10.0.0.21:26379', REDIS_USERNAME: 'a user', REDIS_PASSWORD: 'pw' }, 'REDIS_USERNAME:'],
  ])('refuses %j, saying %s', (environment, message) => {
    expect(() => read(environment)).toThrow(SettingsError);
    expect(() => read(environment)).toThrow(message);
  });

  it('never repeats a password in its refusals', () => {
    const refused: Record<string, string>[] = [
      { REDIS_SENTINELS: 'bad entry', REDIS_PASSWORD: 'CANARY-DATA', REDIS_SENTINEL_PASSWORD: 'CANARY-SENTINEL' },
      {
        REDIS_URL: 'redis://10.0.0.20:6379',
        REDIS_PASSWORD: 'CANARY-DATA',
        REDIS_SENTINEL_PASSWORD: 'CANARY-SENTINEL',
      },
      { REDIS_SENTINELS: 'CANARY-DATA:1:2' },
    ];
    for (const environment of refused) {
      expect(() => read(environment)).toThrow(SettingsError);
      try {
        read(environment);
      } catch (error) {
        expect(String(error)).not.toContain('CANARY');
      }
    }
  });

  it('reads a long hostile value in one pass, and refuses it', () => {
    for (const hostile of ['['.repeat(200_000), ':'.repeat(200_000), `${'a.'.repeat(100_000)}:1`, ','.repeat(200_000)])
      expect(() => read({ REDIS_SENTINELS: hostile })).toThrow('REDIS_SENTINELS');
  });
});

describe("the Sentinel target as ioredis's options", () => {
  const target: RedisSentinelTarget = {
    sentinels: [{ host: '10.0.0.21', port: 26379 }],
    masterName: 'mymaster',
    username: null,
    password: 'pw',
    sentinelPassword: 'spw',
    tls: false,
    sentinelTls: false,
  };

  it("asks the Sentinels for the primary and checks its role, with ioredis's failover detector off (it can end the client)", () => {
    expect(connectionOptions(target)).toMatchObject({
      sentinels: [{ host: '10.0.0.21', port: 26379 }],
      name: 'mymaster',
      role: 'master',
      password: 'pw',
      sentinelPassword: 'spw',
      failoverDetector: false,
    });
    const options = connectionOptions(target);
    expect(options).not.toHaveProperty('username');
    expect(options).not.toHaveProperty('tls');
    expect(options).not.toHaveProperty('sentinelTLS');
    expect(options.reconnectOnError?.(new Error("READONLY You can't write against a read only replica."))).toBe(true);
    expect(options.reconnectOnError?.(new Error('ERR wrong number of arguments'))).toBe(false);
  });

  it('puts TLS on the data nodes (which ioredis needs told twice) and on the Sentinels separately', () => {
    expect(connectionOptions({ ...target, tls: true })).toMatchObject({ tls: {}, enableTLSForSentinelMode: true });
    expect(connectionOptions({ ...target, tls: true })).not.toHaveProperty('sentinelTLS');
    expect(connectionOptions({ ...target, sentinelTls: true })).toMatchObject({ sentinelTLS: {} });
    expect(connectionOptions({ ...target, sentinelTls: true })).not.toHaveProperty('tls');
  });
});
