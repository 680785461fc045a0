import { describe, expect, it } from 'vitest';
import { createHandleStorage } from '../../../../src/frame/session/handle-storage.ts';

const KEY = 'practice-chat:smile-1';
const NOW = 1_800_000_000_000;

function memoryStorage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

const throwing = {
  getItem(): string | null {
    throw new DOMException('blocked', 'SecurityError');
  },
  setItem(): void {
    throw new DOMException('full', 'QuotaExceededError');
  },
  removeItem(): void {
    throw new DOMException('blocked', 'SecurityError');
  },
};

describe('createHandleStorage', () => {
  it('round-trips a handle under practice-chat:<clientId>', () => {
    const storage = memoryStorage();
    const handles = createHandleStorage(storage, 'smile-1', () => NOW);
    handles.save({ handle: 'AbC_12-xyz', expiresAt: NOW + 60_000 });
    expect([...storage.items.keys()]).toEqual([KEY]);
    expect(handles.load()).toEqual({ handle: 'AbC_12-xyz', expiresAt: NOW + 60_000 });
    expect(createHandleStorage(storage, 'other', () => NOW).load()).toBeNull();
  });

  it('stores only the handle and the expiry', () => {
    const storage = memoryStorage();
    const extra = { handle: 'h1', expiresAt: NOW + 1, text: 'my tooth hurts', conversationId: 'c-9' };
    createHandleStorage(storage, 'smile-1', () => NOW).save(extra);
    expect(Object.keys(JSON.parse(storage.items.get(KEY) ?? 'null') as object).sort()).toEqual(['expiresAt', 'handle']);
    expect(storage.items.get(KEY)).not.toContain('tooth');
  });

  it('drops an expired handle', () => {
    const storage = memoryStorage();
    let now = NOW;
    const handles = createHandleStorage(storage, 'smile-1', () => now);
    handles.save({ handle: 'h1', expiresAt: NOW + 1000 });
    now = NOW + 1000;
    expect(handles.load()).toBeNull();
    expect(storage.items.has(KEY)).toBe(false);
  });

  it('does not save a handle that is already expired or malformed, and removes the old one', () => {
    const storage = memoryStorage({ [KEY]: JSON.stringify({ handle: 'old', expiresAt: NOW + 5000 }) });
    const handles = createHandleStorage(storage, 'smile-1', () => NOW);
    handles.save({ handle: 'new', expiresAt: NOW - 1 });
    expect(storage.items.has(KEY)).toBe(false);
    handles.save({ handle: 'a.b', expiresAt: NOW + 5000 });
    expect(storage.items.has(KEY)).toBe(false);
  });

  it.each([
    'not json',
    '',
    'null',
    '42',
    '"h1"',
    '[]',
    '{}',
    JSON.stringify({ handle: 'h1' }),
    JSON.stringify({ expiresAt: NOW + 5000 }),
    JSON.stringify({ handle: 'h1', expiresAt: String(NOW + 5000) }),
    JSON.stringify({ handle: 7, expiresAt: NOW + 5000 }),
    JSON.stringify({ handle: '', expiresAt: NOW + 5000 }),
    JSON.stringify({ handle: 'a b', expiresAt: NOW + 5000 }),
    JSON.stringify({ handle: '<script>', expiresAt: NOW + 5000 }),
    JSON.stringify({ handle: 'h'.repeat(513), expiresAt: NOW + 5000 }),
    '{"handle":"h1","expiresAt":1e999}',
  ])('clears the malformed entry %j', (raw) => {
    const storage = memoryStorage({ [KEY]: raw, 'practice-chat:other': 'keep' });
    expect(createHandleStorage(storage, 'smile-1', () => NOW).load()).toBeNull();
    expect(storage.items.has(KEY)).toBe(false);
    expect(storage.items.get('practice-chat:other')).toBe('keep');
  });

  it('returns only the known fields of a stored entry', () => {
    const storage = memoryStorage({ [KEY]: JSON.stringify({ handle: 'h1', expiresAt: NOW + 5000, extra: 1 }) });
    expect(createHandleStorage(storage, 'smile-1', () => NOW).load()).toEqual({ handle: 'h1', expiresAt: NOW + 5000 });
  });

  it('clear() removes the entry', () => {
    const storage = memoryStorage();
    const handles = createHandleStorage(storage, 'smile-1', () => NOW);
    handles.save({ handle: 'h1', expiresAt: NOW + 5000 });
    handles.clear();
    expect(storage.items.size).toBe(0);
    expect(handles.load()).toBeNull();
  });

  it('treats a throwing storage as empty', () => {
    const handles = createHandleStorage(throwing, 'smile-1', () => NOW);
    expect(() => handles.save({ handle: 'h1', expiresAt: NOW + 5000 })).not.toThrow();
    expect(handles.load()).toBeNull();
    expect(() => handles.clear()).not.toThrow();
  });

  it('treats missing storage as empty', () => {
    const handles = createHandleStorage(null, 'smile-1', () => NOW);
    handles.save({ handle: 'h1', expiresAt: NOW + 5000 });
    expect(handles.load()).toBeNull();
    expect(() => handles.clear()).not.toThrow();
  });
});
