// Fakes for the panel's tests: a relay that keeps conversations in memory and behaves like the real one where it
// matters (one message per Idempotency-Key), and a clock whose timers run only when a test advances it.
import type { WebchatConfiguration } from '../../../src/shared/configuration.ts';
import type { ConversationStatus, WireMessage } from '../../../src/shared/wire.ts';
import { TransportError, type Transport } from '../../../src/frame/transport.ts';
import type { AnalyticsEvent } from '../../../src/frame/analytics.ts';
import type { LiveEvent } from '../../../src/frame/live-stream.ts';
import { createChatModel } from '../../../src/frame/model/chat-model.ts';
import { createHandleStorage } from '../../../src/frame/session/handle-storage.ts';

export const configuration: WebchatConfiguration = {
  client_id: 'demo-client',
  is_active: true,
  domains: ['www.smile-dental.test'],
  logo_url: null,
  icon_color: '#0f766e',
  icon_opacity: 100,
  bot_name: 'Aimee',
  google_tag_id: null,
};

export function createManualClock(start = Date.parse('2026-11-22T10:00:00Z')) {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => now,
    setTimer: (run: () => void, ms: number) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, run });
      return id;
    },
    clearTimer: (id: unknown) => void timers.delete(id as number),
    /** Delays of the timers waiting now, shortest first. */
    pending: () => [...timers.values()].map((timer) => timer.at - now).sort((a, b) => a - b),
    /** Moves time on, running every timer that falls due (and those they start), settling promises in between. */
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        await settle();
        const due = [...timers.entries()].filter(([, timer]) => timer.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].run();
      }
      now = until;
      await settle();
    },
  };
}

export const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise((resolve) => setTimeout(resolve, 0));
};

/** A live stream the fake relay opened: the test says what it carries. */
export interface FakeStream {
  handle: string;
  after: number;
  stopped: boolean;
  /** Hands the panel an event, whether or not it has stopped this stream (a late event from a stream it left). */
  deliver(event: LiveEvent): void;
}

/** `stream`: the relay serves live streams (as the real one); without it the panel can only poll (the demo's preview). */
export function createFakeRelay(options: { stream?: boolean } = {}) {
  const conversations = new Map<string, { messages: WireMessage[]; status: ConversationStatus }>();
  const byKey = new Map<string, WireMessage>();
  const calls: string[] = [];
  /** The Idempotency-Key of each create call, in order. */
  const createKeys: string[] = [];
  /** Errors the next calls throw, in order (a relay that is down, rate limiting, …). */
  const failures: TransportError[] = [];
  let sequence = 0;
  let nextHandle = 1;

  const failIfAsked = () => {
    const failure = failures.shift();
    if (failure) throw failure;
  };
  const conversation = (handle: string) => {
    const found = conversations.get(handle);
    if (!found) throw new TransportError('session_expired');
    return found;
  };
  const add = (handle: string, sender: WireMessage['sender'], text: string, authorName: string) => {
    const found = conversation(handle);
    const message: WireMessage = {
      id: `msg-${++sequence}`,
      sequence,
      sender,
      author_name: authorName,
      text,
      created_at: new Date(Date.UTC(2026, 10, 22, 10, 0, sequence)).toISOString(),
    };
    found.messages.push(message);
    return message;
  };

  let readings = 0; // status_as_of of the answers
  const streams: FakeStream[] = [];
  const transport: Transport = {
    async getConfiguration() {
      calls.push('configuration');
      failIfAsked();
      return configuration;
    },
    async createConversation(_clientId, key) {
      calls.push('create');
      createKeys.push(key);
      failIfAsked();
      const handle = `handle-${nextHandle++}`;
      conversations.set(handle, { messages: [], status: 'open' });
      return { conversation: handle, expires_at: '2026-11-22T22:00:00Z' };
    },
    async sendMessage(handle, text, key) {
      calls.push(`send ${key}`);
      failIfAsked();
      const known = byKey.get(`${handle} ${key}`);
      if (known) return known;
      if (conversation(handle).status === 'resolved') throw new TransportError('conversation_resolved');
      const message = add(handle, 'visitor', text, 'Visitor');
      byKey.set(`${handle} ${key}`, message);
      return message;
    },
    async messagesAfter(handle, after) {
      calls.push(`poll ${after}`);
      failIfAsked();
      const found = conversation(handle);
      const messages = found.messages.filter((message) => message.sequence > after);
      // Every answer is a fresh reading (one relay, reading the status each time): newer than any before it.
      return { messages, cursor: messages.at(-1)?.sequence ?? after, status: found.status, status_as_of: ++readings };
    },
    async escalate(handle) {
      calls.push('escalate');
      failIfAsked();
      conversation(handle).status = 'escalated';
      return { status: 'escalated', status_as_of: ++readings };
    },
    async setLanguage(handle, language) {
      calls.push(`language ${handle} ${language}`);
      failIfAsked();
      conversation(handle);
    },
    async endConversation(handle) {
      calls.push('end');
      failIfAsked();
      // As the relay does: the handle opens nothing afterwards.
      conversations.delete(handle);
    },
  };

  if (options.stream) {
    transport.events = (handle, after, listener) => {
      calls.push(`stream ${after}`);
      const stream: FakeStream = { handle, after, stopped: false, deliver: listener };
      streams.push(stream);
      return () => {
        stream.stopped = true;
      };
    };
  }

  return {
    transport,
    calls,
    streams,
    /** The streams the panel has not stopped. */
    openStreams: () => streams.filter((stream) => !stream.stopped),
    createKeys,
    failures,
    conversations,
    /** What the practice's side says (the bot, or a team member). */
    reply: (
      handle: string,
      text: string,
      sender: 'bot' | 'agent' = 'bot',
      author = sender === 'bot' ? 'Aimee' : 'Maria',
    ) => add(handle, sender, text, author),
    visitorMessages: (handle: string) =>
      conversation(handle).messages.filter((message) => message.sender === 'visitor'),
  };
}

/** A model wired to fakes, as main.tsx wires the real one. */
export function createTestModel(
  options: { storage?: Storage; relay?: ReturnType<typeof createFakeRelay>; stream?: boolean } = {},
) {
  const relay = options.relay ?? createFakeRelay({ stream: options.stream });
  const clock = createManualClock();
  const tracked: AnalyticsEvent[] = [];
  const unread: number[] = [];
  const alerts: number[] = [];
  let key = 0;
  const model = createChatModel({
    transport: relay.transport,
    clientId: 'demo-client',
    handles: createHandleStorage(options.storage ?? null, 'demo-client', clock.now),
    analytics: { track: (event) => tracked.push(event) },
    now: clock.now,
    random: () => 0.5,
    newKey: () => `key-${++key}`,
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
    onUnread: (count) => unread.push(count),
    onAlert: (count) => alerts.push(count),
  });
  return { model, relay, clock, tracked, unread, alerts };
}
