import type { MiddlewareHandler } from 'hono';
import type { Responder } from './bot.ts';
import type { CallRecord } from './calls-seed.ts';
import type { LogoImage, LogoSigner } from './logo.ts';
import type { ConfigurationSeed } from './seed.ts';
import type { ConversationStore } from './store.ts';
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
  botNames: ReadonlyMap<string, string>;
  logo: LogoSigner;
  logoImage: LogoImage;
  store: ConversationStore;
  responder: Responder;
  counters: Counters;
}
