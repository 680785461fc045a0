import { describe, expect, it } from 'vitest';
import { createHandleSealer } from '../../../src/relay/conversations/handles.ts';
import { createIdempotencyStore } from '../../../src/relay/conversations/idempotency.ts';
import { createRateLimiter } from '../../../src/relay/protection/rate-limiter.ts';
import { createMemoryRevocationStore, revocationKey } from '../../../src/relay/conversations/revocations.ts';
import { createHash } from 'node:crypto';

describe('handle sealer', () => {
  const claims = { clientId: 'demo-client', conversationId: 'cnv_secret123', expiresAt: Date.now() + 60_000 };

  it('opens what it sealed, and every seal looks different', () => {
    const sealer = createHandleSealer(new Uint8Array(32).fill(3));
    const [a, b] = [sealer.seal(claims), sealer.seal(claims)];
    expect(a).not.toBe(b);
    expect(sealer.open(a)).toEqual(claims);
  });

  it('refuses a handle of the wrong length or alphabet without throwing', () => {
    const sealer = createHandleSealer(new Uint8Array(32).fill(3));
    for (const handle of ['', 'x', 'a'.repeat(600), 'a+b/c=', '%00']) expect(sealer.open(handle)).toBeNull();
  });

  // Opened handles are kept (a poll every few seconds need not pay AES-GCM each time); the expiry must still hold.
  it('refuses a handle once it expires, even after opening it before', () => {
    let clock = 1_000_000;
    const sealer = createHandleSealer(new Uint8Array(32).fill(3), () => clock);
    const handle = sealer.seal({ ...claims, expiresAt: clock + 1_000 });
    expect(sealer.open(handle)).toEqual({ ...claims, expiresAt: 1_001_000 });
    clock += 999;
    expect(sealer.open(handle)).not.toBeNull();
    clock += 1;
    expect(sealer.open(handle)).toBeNull();
    expect(sealer.open(handle)).toBeNull();
  });

  it('keeps opening every handle when more handles are in use than it keeps, and hands out claims no caller can change', () => {
    const sealer = createHandleSealer(new Uint8Array(32).fill(3), Date.now, 2);
    const handles = ['a', 'b', 'c'].map((id) => sealer.seal({ ...claims, conversationId: id }));
    for (let round = 0; round < 2; round++) {
      expect(handles.map((handle) => sealer.open(handle)?.conversationId)).toEqual(['a', 'b', 'c']);
    }
    const opened = sealer.open(handles[0]!)!;
    expect(() => {
      (opened as { conversationId: string }).conversationId = 'other';
    }).toThrow(TypeError);
    expect(sealer.open(handles[0]!)?.conversationId).toBe('a');
  });
});

describe('idempotency store', () => {
  it('forgets keys after their time, and keeps memory bounded', async () => {
    let clock = 0;
    const store = createIdempotencyStore({ ttlMs: 1000, maxEntries: 3, now: () => clock });
    let sends = 0;
    const send = async () => ++sends;
    await store.run('c', 'k1', 'a', send);
    clock = 2000;
    expect(await store.run('c', 'k1', 'a', send)).toEqual({ kind: 'result', value: 2 });
    for (const key of ['k2', 'k3', 'k4', 'k5']) await store.run('c', key, 'a', send);
    expect(store.size).toBeLessThanOrEqual(3);
  });

  it('keeps scopes apart', async () => {
    const store = createIdempotencyStore();
    expect(await store.run('one', 'k', 'a', async () => 1)).toEqual({ kind: 'result', value: 1 });
    expect(await store.run('two', 'k', 'b', async () => 2)).toEqual({ kind: 'result', value: 2 });
  });
});

describe('rate limiter', () => {
  it('allows the limit per window and says how long to wait', () => {
    let clock = 0;
    const limiter = createRateLimiter({ limit: 2, windowMs: 10_000, now: () => clock });
    expect(limiter.hit('a')).toEqual({ allowed: true });
    expect(limiter.hit('a')).toEqual({ allowed: true });
    clock = 2_500;
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 8 });
    expect(limiter.hit('b')).toEqual({ allowed: true });
    clock = 10_000;
    expect(limiter.hit('a')).toEqual({ allowed: true });
  });

  it('tracks a bounded number of keys', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, maxKeys: 2 });
    limiter.hit('a');
    limiter.hit('b');
    limiter.hit('c');
    // 'a' was evicted, so it starts a fresh window.
    expect(limiter.hit('a')).toEqual({ allowed: true });
  });
});

describe('handle length', () => {
  it('refuses to seal a handle that open() would refuse', () => {
    const sealer = createHandleSealer(new Uint8Array(32).fill(3));
    expect(() =>
      sealer.seal({ clientId: 'demo-client', conversationId: 'x'.repeat(600), expiresAt: Date.now() + 1000 }),
    ).toThrow(RangeError);
  });
});

describe('memory revocation store', () => {
  it('retires exactly the conversations revoked, until their time, under a digest of the id', async () => {
    let clock = 1_000;
    const store = createMemoryRevocationStore(() => clock);
    expect(await store.isRevoked('cnv_a')).toBe(false);
    await store.revoke('cnv_a', 2_000);
    expect(await store.isRevoked('cnv_a')).toBe(true);
    expect(await store.isRevoked('cnv_b')).toBe(false);
    clock = 2_000;
    expect(await store.isRevoked('cnv_a')).toBe(false);
    expect(revocationKey('cnv_a')).toBe(createHash('sha256').update('cnv_a').digest('base64url'));
  });
});
