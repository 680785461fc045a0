// The relay's metrics in Prometheus' text format, on a registry of its own (not prom-client's global one, so several
// relays in one process, as in tests, do not share series). Names follow Prometheus' conventions (`_total`
// counters, `_seconds` histograms), and `promtool check metrics` accepts them (test/unit/metrics/).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LiveState, RelayMetrics } from './metrics.ts';

// From a poll answered from the relay's caches to the relay's own deadline (REQUEST_DEADLINE_MS, whose default the
// last bucket covers).
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const UPSTREAM_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface PrometheusMetrics {
  metrics: RelayMetrics;
  registry: Registry;
  /** Reads a value at scrape time (the access token's state), so nothing has to be pushed on every change. */
  gaugeAtScrape(name: string, help: string, read: () => number): void;
}

export function createPrometheusMetrics(): PrometheusMetrics {
  const registry = new Registry();
  // Process (CPU, memory, file descriptors) and Node (event-loop lag, heap, GC) metrics, under their usual names.
  collectDefaultMetrics({ register: registry });
  // Three of those are gauges named like counters, which Prometheus' linter refuses (and rate() on them would
  // mislead); their per-type breakdowns (nodejs_active_handles{type}, …) stay and sum to the same numbers.
  for (const misnamed of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ])
    registry.removeSingleMetric(misnamed);

  const requests = new Histogram({
    name: 'pwc_http_request_duration_seconds',
    help: 'Requests the relay answered, by method, route pattern and status, and how long they took.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const upstream = new Histogram({
    name: 'pwc_upstream_request_duration_seconds',
    help: 'Requests to the upstream service, by operation and outcome, and how long they took.',
    labelNames: ['operation', 'outcome'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers: [registry],
  });
  const redisUp = new Gauge({
    name: 'pwc_redis_up',
    help: 'Whether this instance is connected to Redis (REDIS_URL, or the primary REDIS_SENTINELS name) and it answers: 1 or 0.',
    registers: [registry],
  });
  const redisPrimaryChanges = new Counter({
    name: 'pwc_redis_primary_changes_total',
    help: 'Times this instance reconnected to a Redis primary at another address than before: Sentinel failovers it followed.',
    registers: [registry],
  });
  const redisErrors = new Counter({
    name: 'pwc_redis_command_errors_total',
    help: 'Redis commands that failed (unreachable, timed out, refused).',
    registers: [registry],
  });
  const sessionsExpired = new Counter({
    name: 'pwc_session_expired_total',
    help: 'Conversation calls answered session_expired (a handle expired, retired, or unknown to Redis): the panel starts a new chat.',
    registers: [registry],
  });
  // Read when scraped, from whatever the relay app registered (nothing yet: zeros).
  let readLive: () => LiveState = () => ({ streams: 0, watches: 0, draining: false, eventsLinked: false });
  new Gauge({
    name: 'pwc_live_streams',
    help: 'Live streams (GET /v1/conversation/events) open on this instance.',
    registers: [registry],
    collect() {
      this.set(readLive().streams);
    },
  });
  new Gauge({
    name: 'pwc_live_watches',
    help: 'Conversations this instance watches upstream for its live streams.',
    registers: [registry],
    collect() {
      this.set(readLive().watches);
    },
  });
  new Gauge({
    name: 'pwc_events_link_up',
    help: 'Whether this instance hears the upstream events other instances receive (Redis pub/sub; always 1 without Redis): 1 or 0.',
    registers: [registry],
    collect() {
      this.set(readLive().eventsLinked ? 1 : 0);
    },
  });
  new Gauge({
    name: 'pwc_draining',
    help: 'Whether this instance is stopping (draining): 1 or 0.',
    registers: [registry],
    collect() {
      this.set(readLive().draining ? 1 : 0);
    },
  });
  const storageRefusals = new Counter({
    name: 'pwc_storage_refusals_total',
    help: 'Requests refused because Redis could not be used (storage_unavailable): unreachable, hung or a failed command.',
    registers: [registry],
  });
  const quotaRefusals = new Counter({
    name: 'pwc_quota_refusals_total',
    help: 'Requests refused by a quota (429), by quota.',
    labelNames: ['quota'] as const,
    registers: [registry],
  });
  const replays = new Counter({
    name: 'pwc_idempotent_replays_total',
    help: 'Sends and creates answered from their idempotency record instead of being done again.',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const readBacks = new Counter({
    name: 'pwc_send_read_backs_total',
    help: 'Sends of unknown outcome read back from the conversation, by whether the message was found there.',
    labelNames: ['found'] as const,
    registers: [registry],
  });
  const createsRecovered = new Counter({
    name: 'pwc_lost_creates_recovered_total',
    help: 'Creates whose answer was lost, found upstream by their reference and used instead of created again.',
    registers: [registry],
  });
  const emptyConversations = new Counter({
    name: 'pwc_empty_conversations_total',
    help: 'Upstream conversations left empty: created more than once for one create of a visitor.',
    registers: [registry],
  });
  const createsUnconfirmed = new Counter({
    name: 'pwc_lost_creates_unconfirmed_total',
    help: 'Creates whose answer was lost and whose conversation could not be proven theirs (reference not echoed, several found, created before the attempt, or look-ups off): answered upstream_unavailable, nothing adopted or created.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  let readLookUpsOff = () => 0;
  new Gauge({
    name: 'pwc_lost_create_lookup_off_practices',
    help: 'Practices whose lost creates this instance does not look up, because the upstream service ignores the client_reference filter or does not echo it.',
    registers: [registry],
    collect() {
      this.set(readLookUpsOff());
    },
  });
  const configurationCache = new Counter({
    name: 'pwc_configuration_cache_lookups_total',
    help: 'Webchat configuration lookups (the logo is cached with its configuration), by hit or miss.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const upstreamEvents = new Counter({
    name: 'pwc_upstream_events_total',
    help: 'Calls to the upstream events path, by outcome (accepted, replayed, bad_signature, bad_request).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  const metrics: RelayMetrics = {
    request: (method, route, status, seconds) => requests.labels(method, route, String(status)).observe(seconds),
    upstreamCall: (operation, outcome, seconds) => upstream.labels(operation, outcome).observe(seconds),
    redisUp: (up) => redisUp.set(up ? 1 : 0),
    redisCommandError: () => redisErrors.inc(),
    redisPrimaryChanged: () => redisPrimaryChanges.inc(),
    storageRefused: () => storageRefusals.inc(),
    sessionExpired: () => sessionsExpired.inc(),
    liveState: (read) => {
      readLive = read;
    },
    quotaRefused: (quota) => quotaRefusals.labels(quota).inc(),
    idempotentReplay: (operation) => replays.labels(operation).inc(),
    readBack: (found) => readBacks.labels(String(found)).inc(),
    createRecovered: () => createsRecovered.inc(),
    emptyConversations: (count) => emptyConversations.inc(count),
    lostCreateUnconfirmed: (reason) => createsUnconfirmed.labels(reason).inc(),
    lostCreateLookUpsOff: (read) => {
      readLookUpsOff = read;
    },
    configurationCache: (result) => configurationCache.labels(result).inc(),
    upstreamEvent: (outcome) => upstreamEvents.labels(outcome).inc(),
  };
  return {
    metrics,
    registry,
    gaugeAtScrape: (name, help, read) => {
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read());
        },
      });
    },
  };
}
