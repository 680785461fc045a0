// The conversation's handle and its one keeper, on its own with a fake relay and a storage in memory, and through the
// panel's model: one conversation however many ask for it, picked up again after a reload, forgotten on End chat, on
// expiry and on a refusal, and the language switch told to the relay for the conversation it holds, and only then.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createConversationHandle } from '../../../src/frame/model/conversation-handle.ts';
import { createHandleStorage } from '../../../src/frame/session/handle-storage.ts';
import { TransportError } from '../../../src/frame/transport.ts';
import { createFakeRelay, createTestModel, settle } from './fakes.ts';

/** sessionStorage as the frame has it, in memory. */
function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

const NOW = Date.parse('2026-11-22T10:00:00Z');

/** The keeper as the chat model builds it, with what it tells recorded. */
function createTestHandle(
  options: { storage?: ReturnType<typeof memoryStorage>; relay?: ReturnType<typeof createFakeRelay> } = {},
) {
  const relay = options.relay ?? createFakeRelay();
  const storage = options.storage ?? memoryStorage();
  const told: string[] = [];
  let key = 0;
  const conversation = createConversationHandle({
    transport: relay.transport,
    clientId: 'demo-client',
    handles: createHandleStorage(storage, 'demo-client', () => NOW),
    newKey: () => `key-${++key}`,
    onOpened: (resumed) => told.push(resumed ? 'resumed' : 'opened'),
    onForgotten: () => told.push('forgotten'),
  });
  return { conversation, relay, storage, told };
}

const stored = (storage: ReturnType<typeof memoryStorage>) => [...storage.items.values()].join('');

describe('the handle keeper', () => {
  it('opens one conversation however many ask before it exists, and keeps its handle, in storage too', async () => {
    const test = createTestHandle();
    expect(test.conversation.held()).toBeNull();
    const handles = await Promise.all([test.conversation.ensure(), test.conversation.ensure()]);
    expect(handles).toEqual(['handle-1', 'handle-1']);
    expect(await test.conversation.ensure()).toBe('handle-1');
    expect(test.relay.calls).toEqual(['create']);
    expect(test.told).toEqual(['opened']);
    expect(test.conversation.held()).toBe('handle-1');
    expect(stored(test.storage)).toContain('handle-1');
  });

  it("retries a create that failed with the same Idempotency-Key, and the next conversation's with a new one", async () => {
    const test = createTestHandle();
    test.relay.failures.push(new TransportError('network'));
    await expect(test.conversation.ensure()).rejects.toThrow('network');
    expect(test.conversation.held()).toBeNull();
    expect(await test.conversation.ensure()).toBe('handle-1');
    test.conversation.forget();
    expect(await test.conversation.ensure()).toBe('handle-2');
    expect(test.relay.createKeys).toEqual(['key-1', 'key-1', 'key-2']);
  });

  it('picks up the handle an earlier page of this tab stored, and nothing when none is stored', async () => {
    const storage = memoryStorage();
    const first = createTestHandle({ storage });
    await first.conversation.ensure();
    const second = createTestHandle({ storage, relay: first.relay });
    second.conversation.resume();
    expect(second.conversation.held()).toBe('handle-1');
    expect(second.told).toEqual(['resumed']);
    // Picked up, it is the conversation: no other one is opened for the next message.
    expect(await second.conversation.ensure()).toBe('handle-1');
    expect(first.relay.calls).toEqual(['create']);

    const fresh = createTestHandle();
    fresh.conversation.resume();
    expect(fresh.conversation.held()).toBeNull();
    expect(fresh.told).toEqual([]);
  });

  it('forget() drops the handle here and in storage, and says so', async () => {
    const test = createTestHandle();
    await test.conversation.ensure();
    test.conversation.forget();
    expect(test.conversation.held()).toBeNull();
    expect(test.storage.items.size).toBe(0);
    expect(test.told).toEqual(['opened', 'forgotten']);
  });

  it('end() retires the handle on the relay and forgets it, even when the relay cannot be reached', async () => {
    const test = createTestHandle();
    await test.conversation.ensure();
    test.conversation.end();
    await settle();
    expect(test.relay.calls).toEqual(['create', 'end']);
    expect(test.relay.conversations.has('handle-1')).toBe(false);
    expect(test.conversation.held()).toBeNull();
    expect(test.storage.items.size).toBe(0);

    const unreachable = createTestHandle();
    await unreachable.conversation.ensure();
    unreachable.relay.failures.push(new TransportError('network'));
    unreachable.conversation.end();
    await settle();
    expect(unreachable.conversation.held()).toBeNull();
    expect(unreachable.storage.items.size).toBe(0);
    // Without a conversation there is nothing to retire.
    unreachable.conversation.end();
    expect(unreachable.relay.calls.filter((call) => call === 'end')).toHaveLength(1);
  });

  it('tells the relay of a language switch for the conversation it holds, only then, and a failure changes nothing', async () => {
    const test = createTestHandle();
    test.conversation.setLanguage('es');
    await test.conversation.ensure();
    test.conversation.setLanguage('es');
    test.relay.failures.push(new TransportError('upstream_unavailable'));
    test.conversation.setLanguage('fr');
    await settle();
    expect(test.relay.calls).toEqual(['create', 'language handle-1 es', 'language handle-1 fr']);
    expect(test.conversation.held()).toBe('handle-1');
    // A transport without the call (the demo's preview) has nobody to tell.
    const preview = createTestHandle();
    delete preview.relay.transport.setLanguage;
    await preview.conversation.ensure();
    expect(() => preview.conversation.setLanguage('es')).not.toThrow();
  });
});

describe('the handle through the panel', () => {
  /** A conversation opened by a first message, with what the relay is told of languages recorded. */
  async function chatting(storage = memoryStorage(), stream = false) {
    const test = createTestModel({ storage: storage as unknown as Storage, stream });
    test.model.send('hello');
    await settle();
    const languageCalls = () => test.relay.calls.filter((call) => call.startsWith('language'));
    return { ...test, storage, languageCalls };
  }

  it("a language switch reaches the relay for the conversation's handle, a resumed one's too", async () => {
    const storage = memoryStorage();
    const test = await chatting(storage);
    test.model.setLanguage('es');
    await settle();
    expect(test.languageCalls()).toEqual(['language handle-1 es']);
    test.model.dispose();
    const reloaded = createTestModel({ storage: storage as unknown as Storage, relay: test.relay });
    reloaded.model.resume();
    reloaded.model.setLanguage('fr');
    await settle();
    expect(test.languageCalls()).toEqual(['language handle-1 es', 'language handle-1 fr']);
  });

  it('no language switch before the first message: there is no conversation to tell', async () => {
    const test = createTestModel();
    test.model.setLanguage('es');
    await settle();
    expect(test.relay.calls).toEqual([]);
  });

  type Chatting = Awaited<ReturnType<typeof chatting>>;
  it.each([
    ['End chat', false, (test: Chatting) => test.model.endChat()],
    [
      'a handle that expired (a send refused with session_expired)',
      false,
      async (test: Chatting) => {
        test.relay.failures.push(new TransportError('session_expired'), new TransportError('network'));
        test.model.send('still there?');
        await settle();
      },
    ],
    [
      'a refusal of a read (resolved past its grace)',
      false,
      async (test: Chatting) => {
        test.relay.failures.push(new TransportError('conversation_resolved'));
        test.model.setTabHidden(false);
        await settle();
      },
    ],
    [
      'a refusal on the stream',
      true,
      (test: Chatting) =>
        test.relay.openStreams()[0]!.deliver({ type: 'error', data: new TransportError('session_expired') }),
    ],
  ])(
    '%s forgets the handle: out of storage, and no language switch reaches the relay for it',
    async (_what, stream, leave) => {
      const test = await chatting(memoryStorage(), stream);
      expect(stored(test.storage)).toContain('handle-1');
      await leave(test);
      expect(stored(test.storage)).not.toContain('handle-1');
      test.model.setLanguage('es');
      await settle();
      expect(test.languageCalls()).toEqual([]);
    },
  );
});

describe('the one keeper', () => {
  const frame = new URL('../../../src/frame/', import.meta.url);
  const sources = readdirSync(frame, { recursive: true })
    .map(String)
    .filter((file) => /\.tsx?$/.test(file))
    .map((file) => ({ file, code: readFileSync(new URL(file, frame), 'utf8') }));

  it('only conversation-handle.ts reads, writes or forgets the stored handle, and main.tsx holds none of it', () => {
    const users = sources.filter(({ code }) => /\bhandles\.(load|save|clear)\(/.test(code)).map(({ file }) => file);
    expect(users).toEqual(['model/conversation-handle.ts']);
    // main.tsx builds the storage and hands it on: it never keeps, reads or passes on a handle itself.
    const main = sources.find(({ file }) => file === 'main.tsx')!.code;
    expect(main).toMatch(/handles: createHandleStorage\(/);
    expect(main).not.toMatch(/\.handle\b|[a-z]Handle\b/);
  });
});
