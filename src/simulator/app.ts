import { Hono } from 'hono';
import { bearerAuth } from './bearer.ts';
import { createResponder } from './bot.ts';
import { generateCalls } from './calls-seed.ts';
import type { Counters, SimulatorContext } from './context.ts';
import { apiError, notFound } from './errors.ts';
import { ConnectionDropped, createFaultControl, faultInjection, type FaultControl } from './faults.ts';
import { createLogoSigner, LOGO_SVG, type LogoImage } from './logo.ts';
import { createRandom, opaqueId, randomSeed } from './random.ts';
import { registerCallRoutes } from './routes/calls.ts';
import { registerConversationRoutes } from './routes/conversations.ts';
import { registerLogoRoutes } from './routes/logo.ts';
import { registerMessageRoutes } from './routes/messages.ts';
import { registerPatientRoutes } from './routes/patients.ts';
import { registerStaffApiRoutes } from './routes/staff-api.ts';
import { registerStaffPageRoutes } from './routes/staff-page.ts';
import { loopbackOnly } from './staff/loopback-only.ts';
import { registerTokenRoutes } from './routes/token.ts';
import { registerWebchatConfigurationRoutes } from './routes/webchat-configuration.ts';
import { createEventSender, type UpstreamEventsTarget } from './events/event-sender.ts';
import { CONFIGURATIONS, PRACTICE_BOT_NAMES, PRACTICES, SEED, type ConfigurationSeed, type SeedIds } from './seed.ts';
import type { CallRecord } from './calls-seed.ts';
import {
  addMessage,
  createConversationStore,
  type ConversationRecord,
  type MessageRecord,
  type PatientLinkRecord,
} from './store.ts';
import { createTokenStore } from './tokens.ts';

export type { FaultSettings } from './faults.ts';
export type { Counters } from './context.ts';
export type { CallRecord } from './calls-seed.ts';
export type { ConfigurationSeed, PracticeSeed } from './seed.ts';
export type { UpstreamEventsTarget } from './events/event-sender.ts';
export type { ConversationRecord, MessageRecord, PatientLinkRecord, ConversationDetail } from './store.ts';

export interface SimulatorOptions {
  /** Clock in ms, default Date.now; drives token and signed-URL expiry and record timestamps. */
  now?: () => number;
  /** Delay of the bot's reply, default 700. */
  botReplyDelayMs?: number;
  /** Delay before a team member answers after an escalation (and in agent mode), default 2500. */
  agentJoinDelayMs?: number;
  /** expires_in of issued tokens, default 3600. */
  tokenLifetimeSeconds?: number;
  /** Seeds the PRNG that picks which requests get faults. */
  randomSeed?: number;
  /** HMAC key of signed logo URLs, default random. */
  logoSecret?: string;
  /** Lifetime of signed logo URLs, default 900. */
  logoUrlLifetimeSeconds?: number;
  /** What the signed logo URL serves, default the tooth SVG: tests swap in hostile or odd files. */
  logoImage?: LogoImage;
  /** The seeded account's password, default the public demo one; canary tests set their own. */
  password?: string;
  /** Put in front of every issued access token, so a canary test can look for any token anywhere. */
  accessTokenPrefix?: string;
  /**
   * Send a signed upstream event to the relay on every new message and status change (docs/simulator.md, "Upstream
   * events"). Off when absent.
   */
  events?: UpstreamEventsTarget;
}

/** Read access to the simulator's state, for assertions such as "no upstream conversation was created". */
export interface SimulatorStore {
  conversations: ReadonlyMap<string, Readonly<ConversationRecord>>;
  /** By conversation id, ascending sequence. */
  messages: ReadonlyMap<string, readonly Readonly<MessageRecord>[]>;
  /** By conversation id. */
  patientLinks: ReadonlyMap<string, readonly Readonly<PatientLinkRecord>[]>;
  calls: readonly Readonly<CallRecord>[];
  configurations: ReadonlyMap<string, Readonly<ConfigurationSeed>>;
}

export interface Simulator {
  app: Hono;
  /** `app.fetch(new Request(input, init))`: works with any absolute base URL, e.g. http://upstream.test. */
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  faults: FaultControl;
  /** Affects tokens issued from now on. */
  setTokenLifetime(seconds: number): void;
  /** Every issued token becomes invalid (401). */
  revokeAllTokens(): void;
  /**
   * The practice's side writes in a conversation, as its bot or a team member would (for tests and demos of what a
   * visitor sees). Returns false for an unknown conversation.
   */
  writeAs(conversationId: string, sender: 'bot' | 'agent', text: string): boolean;
  /** Resolves once every upstream event queued so far has been answered or given up (at once without `events`). */
  eventsSettled(): Promise<void>;
  counters: Counters;
  store: SimulatorStore;
  seed: SeedIds;
  /** Clears pending bot and agent replies. */
  close(): void;
}

/** A stand-in for the upstream service. Every call builds independent state. */
export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const now = options.now ?? Date.now;
  const counters: Counters = { tokenRequests: 0, apiRequests: 0, conversationsCreated: 0, messagesReceived: 0 };
  const tokens = createTokenStore({
    now,
    lifetimeSeconds: options.tokenLifetimeSeconds ?? 3600,
    prefix: options.accessTokenPrefix ?? '',
  });
  const events = options.events === undefined ? null : createEventSender(options.events, { now });
  const store = createConversationStore(events === null ? {} : { onChange: events.notify });
  const practices = new Map(PRACTICES.map((practice) => [practice.id, practice]));
  const faults = createFaultControl();
  const configurations = new Map(CONFIGURATIONS.map((config) => [config.id, config]));
  const calls = generateCalls(SEED.organizationId, [
    [SEED.grantedPracticeId, 130],
    [SEED.otherPracticeId, 20],
  ]);

  const ctx: SimulatorContext = {
    now,
    account: { username: SEED.username, password: options.password ?? SEED.password },
    tokens,
    auth: bearerAuth({ tokens }),
    grantedPractices: new Set(PRACTICES.filter((practice) => practice.granted).map((practice) => practice.id)),
    calls,
    configurations,
    practices,
    authorsOf: (practice) => ({
      bot: PRACTICE_BOT_NAMES.get(practice) ?? 'Aimee',
      teamMember: practices.get(practice)?.teamMemberName ?? 'Team member',
    }),
    logo: createLogoSigner({
      secret: options.logoSecret ?? opaqueId('', 32),
      lifetimeSeconds: options.logoUrlLifetimeSeconds ?? 900,
      now,
    }),
    logoImage: options.logoImage ?? { body: LOGO_SVG, contentType: 'image/svg+xml' },
    store,
    responder: createResponder({
      store,
      now,
      botReplyDelayMs: options.botReplyDelayMs ?? 700,
      agentJoinDelayMs: options.agentJoinDelayMs ?? 2500,
    }),
    counters,
    settings: () => faults.current(),
  };

  const app = new Hono();
  app.use('/api/*', async function countApiRequests(_c, next) {
    counters.apiRequests++;
    await next();
  });
  app.use('/api/*', faultInjection({ control: faults, random: createRandom(options.randomSeed ?? randomSeed()) }));
  registerTokenRoutes(app, ctx);
  registerCallRoutes(app, ctx);
  // Before the conversation routes, so `webchat-configuration` is never taken for a conversation id.
  registerWebchatConfigurationRoutes(app, ctx);
  registerConversationRoutes(app, ctx);
  registerMessageRoutes(app, ctx);
  registerPatientRoutes(app, ctx);
  registerLogoRoutes(app, ctx);
  // The practice's side: no Bearer token, no fault injection, not counted as API requests; loopback only.
  app.use('/staff', loopbackOnly());
  app.use('/staff/*', loopbackOnly());
  registerStaffPageRoutes(app);
  registerStaffApiRoutes(app, ctx);
  app.notFound(notFound);
  app.onError((error, c) => {
    // A dropped connection must look like a network error to the caller, not like an answer.
    if (error instanceof ConnectionDropped) throw error;
    // Nothing is logged: a request could carry message text.
    return apiError(c, 500, 'server_error', 'A server error occurred.');
  });

  return {
    app,
    fetch: (input, init) => Promise.resolve(app.fetch(new Request(input, init))),
    faults,
    setTokenLifetime: (seconds) => tokens.setLifetime(seconds),
    revokeAllTokens: () => tokens.revokeAll(),
    writeAs(conversationId, sender, text) {
      const conversation = store.conversations.get(conversationId);
      const authors = store.authors.get(conversationId);
      if (conversation === undefined || authors === undefined) return false;
      const authorName = sender === 'bot' ? authors.bot : authors.teamMember;
      addMessage(store, conversation, { sender, authorName, text, at: new Date(now()).toISOString() });
      return true;
    },
    eventsSettled: () => events?.idle() ?? Promise.resolve(),
    counters,
    store: {
      conversations: store.conversations,
      messages: store.messages,
      patientLinks: store.patientLinks,
      calls,
      configurations,
    },
    seed: { ...SEED, password: options.password ?? SEED.password },
    close: () => {
      ctx.responder.close();
      events?.close();
    },
  };
}
