// STREAM_MAX_UNSENT_BYTES: a safe default, and no value so small that a stream's own catch-up (Node's 16 KB buffer,
// then one message frame of up to about 12.5 KB) would be cut by it.
import { describe, expect, it } from 'vitest';
import { readSettings, SettingsError } from '../../../src/relay/settings.ts';

const secret = () => new Uint8Array(32).fill(1);

describe('STREAM_MAX_UNSENT_BYTES', () => {
  it('is 64 KiB unless set', () => {
    expect(readSettings({ NODE_ENV: 'development' }, secret).streamMaxUnsentBytes).toBe(65_536);
    expect(
      readSettings({ NODE_ENV: 'development', STREAM_MAX_UNSENT_BYTES: '131072' }, secret).streamMaxUnsentBytes,
    ).toBe(131_072);
  });

  it('refuses a value below 32 KiB or above 4 MiB, naming the variable', () => {
    for (const value of ['16384', '32767', '4194305', '64k']) {
      expect(() => readSettings({ NODE_ENV: 'development', STREAM_MAX_UNSENT_BYTES: value }, secret)).toThrow(
        SettingsError,
      );
      expect(() => readSettings({ NODE_ENV: 'development', STREAM_MAX_UNSENT_BYTES: value }, secret)).toThrow(
        /STREAM_MAX_UNSENT_BYTES/,
      );
    }
  });
});
