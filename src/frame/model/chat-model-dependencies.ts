// What the panel's model is built from: main.tsx hands it the real transport, storage, clock and bridge to the loader;
// tests hand it fakes.
import type { ConversationStatus } from '../../shared/wire.ts';
import type { Analytics } from '../analytics.ts';
import type { HandleStorage } from '../session/handle-storage.ts';
import type { Transport } from '../transport.ts';

/** Where the conversation stands, as the panel shows it. */
export type ChatPhase = 'new' | ConversationStatus | 'ended';

export interface ChatModelDependencies {
  transport: Transport;
  clientId: string;
  handles: HandleStorage;
  analytics: Analytics;
  now: () => number;
  random: () => number;
  newKey: () => string;
  setTimer: (run: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
  /** Bot and agent messages that arrived while the panel was closed (the loader shows the count). */
  onUnread: (count: number) => void;
  /** Bot and agent messages that arrived while the tab was hidden (the loader's title prefix); 0 once it is visible. */
  onAlert: (count: number) => void;
}
