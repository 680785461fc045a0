import type { MiddlewareHandler } from 'hono';
import type { Responder } from './bot.ts';
import type { FaultSettings } from './faults.ts';
import type { CallRecord } from './calls-seed.ts';
import type { LogoImage, LogoSigner } from './logo.ts';
import type { ConfigurationSeed, PracticeSeed } from './seed.ts';
import type { ConversationAuthors, ConversationStore } from './store.ts';
import type { TokenStore } from './tokens.ts';

export interface Counters {
  tokenRequests: number;
  apiRequests: number;
  conversationsCreated: number;
  messagesReceived: number;
}

/** Everything one simulator instance owns, handed to its route modules (no module-level state anywhere). */
export interface SimulatorContext {
  now: () => number;
  account: { username: string; password: string };
  tokens: TokenStore;
  /** Bearer check for secured routes. */
  auth: MiddlewareHandler;
  grantedPractices: ReadonlySet<string>;
  calls: readonly CallRecord[];
  configurations: ReadonlyMap<string, ConfigurationSeed>;
  /** By practice id. */
  practices: ReadonlyMap<string, PracticeSeed>;
  /** Who signs a new conversation's bot and team member messages, for its practice. */
  authorsOf(practice: string): ConversationAuthors;
  logo: LogoSigner;
  logoImage: LogoImage;
  store: ConversationStore;
  responder: Responder;
  counters: Counters;
  /** The fault and behaviour settings now (faults.ts): routes read the behaviours, such as ignoring a field. */
  settings: () => FaultSettings;
}
