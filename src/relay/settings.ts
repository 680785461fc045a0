// Every setting of the relay comes from the environment, parsed here once (docs/settings.md lists them). A bad value
// stops the start with a message naming the variable, rather than running with a surprise.
import { z } from 'zod';
import { LOOPBACK_HOSTS } from '../shared/configuration.ts';
import { secretWeakness } from './secret-strength.ts';
import { type IdentitySettings, identitySchema } from './settings/identity.ts';
import { type LimitSettings, limitsSchema } from './settings/limits.ts';
import { type LiveSettings, liveSchema } from './settings/live.ts';
import { type ProxySettings, proxiesSchema } from './settings/proxies.ts';
import { type ServerSettings, serverSchema } from './settings/server.ts';
import { redisTargetOf, type SharedStateSettings, sharedStateSchema } from './settings/shared-state.ts';
import { type UpstreamServiceSettings, upstreamSchema } from './settings/upstream.ts';
import { withoutTrailingSlashes } from './upstream/trailing-slashes.ts';

export type { UpstreamSettings } from './settings/upstream.ts';

// Each group's variables are declared in its own file (settings/); a variable belongs to exactly one group.
const environmentSchema = z.object({
  ...serverSchema.shape,
  ...identitySchema.shape,
  ...upstreamSchema.shape,
  ...proxiesSchema.shape,
  ...limitsSchema.shape,
  ...liveSchema.shape,
  ...sharedStateSchema.shape,
});

/** Every environment variable the relay reads (deployment files are checked against it). */
export const SETTING_NAMES: readonly string[] = Object.keys(environmentSchema.shape);

export interface RelaySettings
  extends ServerSettings,
    IdentitySettings,
    UpstreamServiceSettings,
    ProxySettings,
    LimitSettings,
    LiveSettings,
    SharedStateSettings {}

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
  const shared = redisTargetOf(env);
  if ('refused' in shared) throw new SettingsError(shared.refused);
  return {
    port: env.PORT,
    host: env.HOST,
    upstream: env.UPSTREAM_URL
      ? {
          url: withoutTrailingSlashes(env.UPSTREAM_URL),
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
    redis: shared.redis,
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
