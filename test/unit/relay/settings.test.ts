import { describe, expect, it } from 'vitest';
import { readSettings, SettingsError } from '../../../src/relay/settings.ts';

const secret = () => new Uint8Array(32).fill(1);

describe('readSettings', () => {
  it('has documented defaults and embeds the simulator when no upstream is set', () => {
    const settings = readSettings({}, secret);
    expect(settings).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      upstream: null,
      handleSecretGenerated: true,
      development: true,
      configCacheSeconds: 60,
      requestsPerMinutePerIp: 300,
      conversationsPerHourPerIp: 20,
      messagesPerMinutePerConversation: 20,
      bodyLimitBytes: 16384,
      messageMaxLength: 2000,
    });
  });

  it('reads every variable', () => {
    const settings = readSettings(
      {
        PORT: '9000',
        UPSTREAM_URL: 'https://api.example.com/',
        UPSTREAM_USERNAME: 'relay@practice.example',
        UPSTREAM_PASSWORD: 'secret',
        HANDLE_SECRET: 'k'.repeat(32),
        PUBLIC_ORIGIN: 'https://chat.practice.example/ignored/path',
        TRUST_PROXY: 'true',
        REQUESTS_PER_MINUTE_PER_IP: '10',
      },
      secret,
    );
    expect(settings).toMatchObject({
      port: 9000,
      upstream: { url: 'https://api.example.com', username: 'relay@practice.example', password: 'secret' },
      handleSecretGenerated: false,
      publicOrigin: 'https://chat.practice.example',
      trustProxy: true,
      requestsPerMinutePerIp: 10,
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ UPSTREAM_URL: 'ftp://x' }, 'UPSTREAM_URL'],
    [{ HANDLE_SECRET: 'short' }, 'HANDLE_SECRET'],
    [{ TRUST_PROXY: 'yes please' }, 'TRUST_PROXY'],
    [{ UPSTREAM_URL: 'https://api.example.com' }, 'go together'],
    [{ NODE_ENV: 'production' }, 'HANDLE_SECRET is required'],
    [{ NODE_ENV: 'production', HANDLE_SECRET: 'k'.repeat(32) }, 'required when NODE_ENV=production'],
    [
      { NODE_ENV: 'production', HANDLE_SECRET: 'k'.repeat(32), UPSTREAM_URL: 'http://api.example.com', UPSTREAM_USERNAME: 'u', UPSTREAM_PASSWORD: 'p' },
      'must be https://',
    ],
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
