// Every setting of the relay comes from the environment, parsed here once (docs/settings.md lists them). A bad value
// stops the start with a message naming the variable, rather than running with a surprise.
import { z } from 'zod';
import { LOOPBACK_HOSTS } from '../shared/configuration.ts';
import { MESSAGE_MAX_LENGTH } from '../shared/wire.ts';
import { secretWeakness } from './secret-strength.ts';
import { parseTrustProxy, type TrustedProxies } from './http/trusted-proxies.ts';

const integer = (fallback: number, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be from ${min} to ${max}`).max(max, `must be from ${min} to ${max}`))
    .optional()
    .transform((value) => value ?? fallback);

const flag = z
  .enum(['true', 'false', '1', '0', ''], 'must be true or false')
  .optional()
  .transform((value) => value === 'true' || value === '1');

/** A flag whose default depends on the mode: undefined when unset. */
const optionalFlag = z
  .enum(['true', 'false', '1', '0'], 'must be true or false')
  .optional()
  .transform((value) => (value === undefined ? undefined : value === 'true' || value === '1'));

const environmentSchema = z.object({
  PORT: integer(8787, 0, 65535),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  NODE_ENV: z.string().optional(),
  UPSTREAM_URL: z.url({ protocol: /^https?$/ }).optional(),
  UPSTREAM_USERNAME: z.string().min(1).optional(),
  UPSTREAM_PASSWORD: z.string().min(1).optional(),
  HANDLE_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  PUBLIC_ORIGIN: z.url({ protocol: /^https?$/ }).optional(),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, context) => {
      const trusted = parseTrustProxy(value);
      if (!('refused' in trusted)) return trusted;
      context.addIssue({ code: 'custom', message: trusted.refused });
      return z.NEVER;
    }),
  CONFIG_CACHE_SECONDS: integer(60, 0, 600),
  STATUS_REFRESH_SECONDS: integer(10, 0, 60),
  UPSTREAM_TIMEOUT_MS: integer(5000, 100, 60_000),
  REQUEST_DEADLINE_MS: integer(8000, 200, 120_000),
  SEND_SETTLE_MS: integer(15_000, 0, 600_000),
  HANDLE_TTL_HOURS: integer(12, 1, 24 * 30),
  REQUESTS_PER_MINUTE_PER_IP: integer(300, 1, 1_000_000),
  CONVERSATIONS_PER_HOUR_PER_IP: integer(20, 1, 1_000_000),
  QUOTA_IPV6_PREFIX: integer(64, 32, 128),
  MESSAGES_PER_MINUTE_PER_CONVERSATION: integer(20, 1, 1_000_000),
  BODY_LIMIT_BYTES: integer(16 * 1024, 1024, 1024 * 1024),
  MESSAGE_MAX_LENGTH: integer(MESSAGE_MAX_LENGTH, 1, MESSAGE_MAX_LENGTH),
  SIMULATOR_PORT: integer(8788, 0, 65535),
  ALLOW_PLAIN_HTTP_UPSTREAM: flag,
  SHUTDOWN_GRACE_MS: integer(10_000, 0, 600_000),
  HEADERS_TIMEOUT_MS: integer(10_000, 1000, 120_000),
  REQUEST_TIMEOUT_MS: integer(30_000, 1000, 600_000),
  KEEP_ALIVE_TIMEOUT_MS: integer(5000, 1000, 600_000),
  MAX_EVENT_LOOP_DELAY_MS: integer(1000, 10, 60_000),
  DEMO_PAGES: optionalFlag,
  STREAM_LIFETIME_SECONDS: integer(300, 10, 3600),
  MAX_STREAMS: integer(20_000, 0, 1_000_000),
  // At least Node's 16 KB write buffer plus the largest message frame (2,000 characters, 6 bytes each as JSON escapes):
  // a catch-up writes until the buffer is full, then one frame more, and must never be cut for it.
  STREAM_MAX_UNSENT_BYTES: integer(64 * 1024, 32 * 1024, 4 * 1024 * 1024),
  UPSTREAM_READ_CONCURRENCY: integer(16, 1, 1000),
  UPSTREAM_EVENTS_PER_MINUTE_PER_IP: integer(6000, 1, 1_000_000),
  UPSTREAM_EVENTS_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  METRICS_PORT: integer(0, 1, 65535).transform((port) => (port === 0 ? null : port)),
  METRICS_HOST: z.string().trim().min(1).default('127.0.0.1'),
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
});

/** Every environment variable the relay reads (deployment files are checked against it). */
export const SETTING_NAMES: readonly string[] = Object.keys(environmentSchema.shape);

export interface UpstreamSettings {
  url: string;
  username: string;
  password: string;
}

export interface RelaySettings {
  port: number;
  host: string;
  /** null: no upstream configured, so `npm start` embeds the simulator. */
  upstream: UpstreamSettings | null;
  /** The key material for sealing conversation handles. */
  handleSecret: Uint8Array;
  handleSecretGenerated: boolean;
  /** The relay's own origin as browsers see it; null means "the origin of each request". */
  publicOrigin: string | null;
  /** Whose X-Forwarded-For quotas believe: a number of proxies, or their addresses (`{ hops: 0 }`: nobody's). */
  trustProxy: TrustedProxies;
  /**
   * Only NODE_ENV=development or test. Development allows http logos on loopback hosts (the embedded simulator serves
   * its logo over http), a generated HANDLE_SECRET, and no PUBLIC_ORIGIN (then only loopback Host names are served).
   */
  development: boolean;
  configCacheSeconds: number;
  /** How long a conversation's status, once read, serves the polls that bring no newer message (0: every poll reads it). */
  statusRefreshSeconds: number;
  upstreamTimeoutMs: number;
  requestDeadlineMs: number;
  /**
   * How long after a send began its outcome may still be unknown (the service finishing a request the relay stopped
   * waiting for): no retry sends again before then. Never less than the send window plus the landing allowance.
   */
  sendSettleMs: number;
  handleTtlMs: number;
  requestsPerMinutePerIp: number;
  conversationsPerHourPerIp: number;
  /** Quotas count an IPv6 client by its network of this many bits (128: by its address); IPv4 by its address. */
  quotaIpv6Prefix: number;
  messagesPerMinutePerConversation: number;
  bodyLimitBytes: number;
  messageMaxLength: number;
  /** Redis (or Valkey) shared by all instances: idempotency records, quotas, retired handles. null: in memory. */
  redisUrl: string | null;
  /** Where `npm start` runs the built-in simulator when no upstream is configured. */
  simulatorPort: number;
  /** How long a stop (SIGTERM/SIGINT) lets requests in flight finish before it cuts them off. */
  shutdownGraceMs: number;
  /** A client must have sent its request's headers within this long of connecting (or of its previous request). */
  headersTimeoutMs: number;
  /** A client must have sent its whole request, body included, within this long. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** The index page, /try and the demo page (and its assets): on in development, off in production unless DEMO_PAGES. */
  demoPages: boolean;
  /** /readyz answers 503 while this instance's event loop has recently run later than this (health/readiness.ts). */
  maxEventLoopDelayMs: number;
  /** How long a live stream lasts before the panel is asked to reconnect (jittered ±20 %). */
  streamLifetimeMs: number;
  /** The most live streams this instance holds; beyond, panels poll. */
  maxStreams: number;
  /**
   * The most bytes one live stream may have written that its client has not taken; past it the connection is cut (the
   * panel reads what it missed and reconnects). Bounds what streams that are never read can hold: MAX_STREAMS times this.
   */
  streamMaxUnsentBytes: number;
  /** The most upstream reads the live watches of this instance run at once. */
  upstreamReadConcurrency: number;
  /**
   * The secret the service signs its events with (POST /v1/upstream-events); null: the path answers 404 and watches
   * only poll. `npm start` generates one for its embedded simulator when unset.
   */
  upstreamEventsSecret: string | null;
  /** Calls to POST /v1/upstream-events per source address per minute (the service's own events included). */
  upstreamEventsPerMinutePerIp: number;
  /** Where the Prometheus metrics listener runs; null: no metrics at all. Never the public port. */
  metrics: { host: string; port: number } | null;
}

export class SettingsError extends Error {}

/** Exactly `development` or `test` (Vitest sets `test`); every other value, and none, means production. */
export function isDevelopmentMode(nodeEnv: string | undefined): boolean {
  return nodeEnv === 'development' || nodeEnv === 'test';
}

function isHttpsOrLoopback(address: string): boolean {
  const url = new URL(address);
  return url.protocol === 'https:' || LOOPBACK_HOSTS.has(url.hostname);
}

export function readSettings(
  environment: Record<string, string | undefined>,
  randomSecret: () => Uint8Array,
): RelaySettings {
  // An empty variable means "not set", as in most shells' `VAR= npm start`.
  const present = Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new SettingsError(`Invalid settings:\n  ${problems.join('\n  ')}`);
  }
  const env = parsed.data;
  // Node refuses a headers timeout longer than the request's: say so by name rather than fail at listen.
  if (env.HEADERS_TIMEOUT_MS > env.REQUEST_TIMEOUT_MS) {
    throw new SettingsError(
      'HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS (the request timeout includes the headers).',
    );
  }
  // Metrics on the public port would show every visitor the relay's traffic: a port of their own, or none.
  if (env.METRICS_PORT !== null && env.METRICS_PORT === env.PORT) {
    throw new SettingsError(
      'METRICS_PORT must differ from PORT: metrics are served on a listener of their own, never the public one.',
    );
  }
  const upstreamParts = [env.UPSTREAM_URL, env.UPSTREAM_USERNAME, env.UPSTREAM_PASSWORD];
  if (upstreamParts.some(Boolean) && !upstreamParts.every(Boolean)) {
    throw new SettingsError(
      'UPSTREAM_URL, UPSTREAM_USERNAME and UPSTREAM_PASSWORD go together: set all three or none.',
    );
  }
  // Safe by default: anything but an explicit development or test mode (unset, "Production", a typo) is production.
  const development = isDevelopmentMode(env.NODE_ENV);
  const production = !development;
  const modeName = `NODE_ENV is ${env.NODE_ENV === undefined ? 'unset' : JSON.stringify(env.NODE_ENV)}, so the relay runs as production`;
  if (production && env.HANDLE_SECRET === undefined) {
    throw new SettingsError(
      `HANDLE_SECRET is required: ${modeName} (at least 32 random characters, e.g. \`openssl rand -base64 32\`; NODE_ENV=development for a local try).`,
    );
  }
  if (env.HANDLE_SECRET !== undefined) {
    const weakness = secretWeakness(env.HANDLE_SECRET);
    if (weakness !== null)
      throw new SettingsError(
        `HANDLE_SECRET ${weakness}: use at least 32 random bytes, e.g. \`openssl rand -base64 32\`.`,
      );
  }
  if (env.UPSTREAM_EVENTS_SECRET !== undefined) {
    const weakness = secretWeakness(env.UPSTREAM_EVENTS_SECRET);
    if (weakness !== null)
      throw new SettingsError(
        `UPSTREAM_EVENTS_SECRET ${weakness}: use at least 32 random bytes, e.g. \`openssl rand -base64 32\`.`,
      );
  }
  // In production the built-in simulator, with its public demo account, must never stand in for the real service.
  if (production && env.UPSTREAM_URL === undefined) {
    throw new SettingsError(`UPSTREAM_URL, UPSTREAM_USERNAME and UPSTREAM_PASSWORD are required: ${modeName}.`);
  }
  // The password and the access token travel to the upstream: never in the clear, unless the operator says so by name.
  if (env.UPSTREAM_URL !== undefined && !isHttpsOrLoopback(env.UPSTREAM_URL) && !env.ALLOW_PLAIN_HTTP_UPSTREAM) {
    throw new SettingsError(
      'UPSTREAM_URL must be https:// (plain http only to a loopback address, or with ALLOW_PLAIN_HTTP_UPSTREAM=true).',
    );
  }
  // Without it the relay would take its origin from the Host header, which a DNS-rebinding page controls.
  if (production && env.PUBLIC_ORIGIN === undefined) {
    throw new SettingsError(
      `PUBLIC_ORIGIN is required: ${modeName} (the relay's address as browsers see it, e.g. https://chat.practice.example).`,
    );
  }
  if (production && env.PUBLIC_ORIGIN !== undefined && !isHttpsOrLoopback(env.PUBLIC_ORIGIN)) {
    throw new SettingsError('PUBLIC_ORIGIN must be https:// in production (plain http only for a loopback address).');
  }
  return {
    port: env.PORT,
    host: env.HOST,
    upstream: env.UPSTREAM_URL
      ? {
          url: env.UPSTREAM_URL.replace(/\/+$/, ''),
          username: env.UPSTREAM_USERNAME!,
          password: env.UPSTREAM_PASSWORD!,
        }
      : null,
    handleSecret: env.HANDLE_SECRET === undefined ? randomSecret() : new TextEncoder().encode(env.HANDLE_SECRET),
    handleSecretGenerated: env.HANDLE_SECRET === undefined,
    publicOrigin: env.PUBLIC_ORIGIN === undefined ? null : new URL(env.PUBLIC_ORIGIN).origin,
    trustProxy: env.TRUST_PROXY,
    development,
    configCacheSeconds: env.CONFIG_CACHE_SECONDS,
    statusRefreshSeconds: env.STATUS_REFRESH_SECONDS,
    upstreamTimeoutMs: env.UPSTREAM_TIMEOUT_MS,
    requestDeadlineMs: env.REQUEST_DEADLINE_MS,
    sendSettleMs: env.SEND_SETTLE_MS,
    handleTtlMs: env.HANDLE_TTL_HOURS * 60 * 60 * 1000,
    requestsPerMinutePerIp: env.REQUESTS_PER_MINUTE_PER_IP,
    conversationsPerHourPerIp: env.CONVERSATIONS_PER_HOUR_PER_IP,
    quotaIpv6Prefix: env.QUOTA_IPV6_PREFIX,
    messagesPerMinutePerConversation: env.MESSAGES_PER_MINUTE_PER_CONVERSATION,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    messageMaxLength: env.MESSAGE_MAX_LENGTH,
    redisUrl: env.REDIS_URL ?? null,
    simulatorPort: env.SIMULATOR_PORT,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    headersTimeoutMs: env.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: env.KEEP_ALIVE_TIMEOUT_MS,
    maxEventLoopDelayMs: env.MAX_EVENT_LOOP_DELAY_MS,
    streamLifetimeMs: env.STREAM_LIFETIME_SECONDS * 1000,
    maxStreams: env.MAX_STREAMS,
    streamMaxUnsentBytes: env.STREAM_MAX_UNSENT_BYTES,
    upstreamReadConcurrency: env.UPSTREAM_READ_CONCURRENCY,
    upstreamEventsSecret: env.UPSTREAM_EVENTS_SECRET ?? null,
    upstreamEventsPerMinutePerIp: env.UPSTREAM_EVENTS_PER_MINUTE_PER_IP,
    metrics: env.METRICS_PORT === null ? null : { host: env.METRICS_HOST, port: env.METRICS_PORT },
    // Tools for whoever runs the relay, not for patients: a production relay serves only what a practice's page needs.
    demoPages: env.DEMO_PAGES ?? development,
  };
}
