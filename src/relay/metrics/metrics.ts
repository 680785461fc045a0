// What the relay counts for its operator, behind one small interface: the domain code reports events here and never
// imports prom-client. `noMetrics` is the default (no METRICS_PORT, tests); prometheus.ts is the real one.
//
// Every label value comes from a short fixed list (route patterns, operation names, outcomes, quota names): never a
// handle, an address, a client_id, a key or anything a visitor sends, so the number of series does not grow with
// visitors or practices.

/** How an upstream call ended, for metrics: a status class, or what went wrong without one. */
export type UpstreamOutcome = 'ok' | '4xx' | '429' | '5xx' | 'timeout' | 'connection_error' | 'bad_response';

export type CacheResult = 'hit' | 'miss';

export interface RelayMetrics {
  /** One answered request: `route` is the pattern the request log writes. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** One upstream exchange (`operation` from upstream/contract/exchanges.ts). */
  upstreamCall(operation: string, outcome: UpstreamOutcome, seconds: number): void;
  /** Whether Redis (REDIS_URL, or the primary REDIS_SENTINELS name) is connected now. */
  redisUp(up: boolean): void;
  /** With Sentinel: this instance reconnected to a primary at another address than before (it followed a failover). */
  redisPrimaryChanged(): void;
  /** A Redis command failed (unreachable, timed out, refused). */
  redisCommandError(): void;
  /** A conversation call answered `session_expired`: the panel ends that chat and starts a new one. */
  sessionExpired(): void;
  /** Where this instance's live state is read at scrape time: open streams, conversations watched, draining. */
  liveState(read: () => LiveState): void;
  /** A request refused because Redis could not be used (`storage_unavailable`). */
  storageRefused(): void;
  /** A request refused by a quota (`quota`: the quota's fixed name). */
  quotaRefused(quota: string): void;
  /** A send or create answered from its idempotency record rather than done again. */
  idempotentReplay(operation: 'send' | 'create'): void;
  /** A send of unknown outcome read back from the conversation: was the message there? */
  readBack(found: boolean): void;
  /** A create whose answer was lost, found upstream by its reference and used rather than created again. */
  createRecovered(): void;
  /** Upstream conversations left empty: created twice for one visitor's create (create-once.ts). */
  emptyConversations(count: number): void;
  /** A create whose answer was lost, neither adopted nor made again: nothing proved which conversation was its own. */
  lostCreateUnconfirmed(reason: 'reference_not_echoed' | 'several_found' | 'not_after_attempt' | 'lookup_off'): void;
  /** Where the number of practices whose lost creates are not looked up (the service ignores the filter) is read. */
  lostCreateLookUpsOff(read: () => number): void;
  /** A webchat configuration (and its logo, cached with it) looked up in the relay's cache. */
  configurationCache(result: CacheResult): void;
  /** A call to POST /v1/upstream-events, by how it ended. */
  upstreamEvent(outcome: 'accepted' | 'replayed' | 'bad_signature' | 'bad_request'): void;
}

export interface LiveState {
  streams: number;
  watches: number;
  draining: boolean;
  /** Subscribed to the other instances' events (through Redis; always in memory). */
  eventsLinked: boolean;
}

export const noMetrics: RelayMetrics = {
  sessionExpired: () => {},
  liveState: () => {},
  request: () => {},
  upstreamCall: () => {},
  redisUp: () => {},
  redisCommandError: () => {},
  redisPrimaryChanged: () => {},
  storageRefused: () => {},
  quotaRefused: () => {},
  idempotentReplay: () => {},
  readBack: () => {},
  createRecovered: () => {},
  emptyConversations: () => {},
  lostCreateUnconfirmed: () => {},
  lostCreateLookUpsOff: () => {},
  configurationCache: () => {},
  upstreamEvent: () => {},
};
