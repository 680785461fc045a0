// The relay's metrics, scraped from their own listener after real traffic (a real relay on a port, the simulator as
// upstream with faults): Prometheus' own linter (`promtool check metrics`) accepts the text, the series an operator
// needs are there with the expected labels, and no handle, message text, address or client_id is in them.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { startMetricsServer, type MetricsServer } from '../../../src/relay/metrics/metrics-server.ts';
import { createPrometheusMetrics } from '../../../src/relay/metrics/prometheus.ts';
import { startRelayServer, type RunningRelay } from '../../../src/relay/serve.ts';
import { readSettings } from '../../../src/relay/settings.ts';
import { createUpstreamClient } from '../../../src/relay/upstream/index.ts';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { bearer, ESCALATE, MESSAGES } from '../../support/conversation-calls.ts';
import { PROMTOOL, requirePromtool } from '../../support/promtool.ts';

const MESSAGE_CANARY = 'metrics-canary-text-7f3a';
const CLIENT_ADDRESS_CANARY = '203.0.113.77';

let simulator: Awaited<ReturnType<typeof startSimulatorServer>>;
let relay: RunningRelay;
let metricsServer: MetricsServer;
let handle: string;
let text: string;

async function call(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  return fetch(`${relay.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      Origin: relay.url,
      'Content-Type': 'application/json',
      'X-Forwarded-For': CLIENT_ADDRESS_CANARY,
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

beforeAll(async () => {
  requirePromtool();
  simulator = await startSimulatorServer({ botReplyDelayMs: 0 });
  const settings = readSettings(
    { NODE_ENV: 'test', PORT: '0', TRUST_PROXY: '127.0.0.1', CONVERSATIONS_PER_HOUR_PER_IP: '2' },
    () => new Uint8Array(32).fill(9),
  );
  const prometheus = createPrometheusMetrics();
  const upstream = createUpstreamClient({
    baseUrl: simulator.url,
    username: simulator.simulator.seed.username,
    password: simulator.simulator.seed.password,
    metrics: prometheus.metrics,
  });
  prometheus.gaugeAtScrape(
    'pwc_upstream_token_valid',
    'Whether this instance holds a valid upstream access token: 1 or 0.',
    () => (upstream.tokenState().state === 'valid' ? 1 : 0),
  );
  relay = await startRelayServer({
    settings,
    upstream: { client: upstream },
    files: {
      distDir: fileURLToPath(new URL('../../fixtures/dist', import.meta.url)),
      publicDir: fileURLToPath(new URL('../../../public', import.meta.url)),
    },
    observability: { logger: createJsonLogger(() => {}), metrics: prometheus.metrics },
  });
  metricsServer = await startMetricsServer({ registry: prometheus.registry, host: '127.0.0.1', port: 0 });

  // Traffic: configurations (a miss, then a hit), a conversation, a send and its replay, a poll, an upstream 500, a
  // quota refusal, a 404.
  expect((await call('/v1/webchat-configuration?client_id=demo-client')).status).toBe(200);
  expect((await call('/v1/webchat-configuration?client_id=demo-client')).status).toBe(200);
  const created = await call('/v1/conversations', { body: { client_id: 'demo-client' } });
  handle = ((await created.json()) as { conversation: string }).conversation;
  text = `${MESSAGE_CANARY} hello`;
  const send = () =>
    call(MESSAGES, { body: { text }, headers: { ...bearer(handle), 'Idempotency-Key': 'metrics-key-0001' } });
  expect((await send()).status).toBe(201);
  expect((await send()).status).toBe(201);
  expect((await call(`${MESSAGES}?after=0`, { headers: bearer(handle) })).status).toBe(200);
  simulator.simulator.faults.set({ errorRate: 1, match: /escalate/ });
  expect((await call(ESCALATE, { body: {}, headers: bearer(handle) })).status).toBe(503);
  simulator.simulator.faults.reset();
  expect((await call('/v1/conversations', { body: { client_id: 'demo-client' } })).status).toBe(201);
  expect((await call('/v1/conversations', { body: { client_id: 'demo-client' } })).status).toBe(429);
  expect((await call(`/v1/no-such-thing/${handle}`)).status).toBe(404);
  expect((await call(`${MESSAGES}?after=0`, { headers: bearer('not-a-handle') })).status).toBe(401);
}, 30_000);
afterAll(async () => {
  await metricsServer?.close();
  await relay?.close();
  await simulator?.close();
});

const scrape = async () => {
  const response = await fetch(`${metricsServer.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
};

describe('metrics', () => {
  it('are accepted by promtool check metrics (format and naming conventions)', async () => {
    const checked = spawnSync(PROMTOOL, ['check', 'metrics'], {
      input: await scrape(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.status).toBe(0);
  });

  it('hold the series an operator needs, with bounded labels', async () => {
    const text = await scrape();
    for (const series of [
      'pwc_http_request_duration_seconds_count{method="POST",route="/v1/conversations",status="201"} 2',
      'pwc_http_request_duration_seconds_count{method="POST",route="/v1/conversations",status="429"} 1',
      'pwc_http_request_duration_seconds_count{method="POST",route="/v1/conversation/messages",status="201"} 2',
      'pwc_http_request_duration_seconds_count{method="POST",route="/v1/conversation/escalate",status="503"} 1',
      'pwc_upstream_request_duration_seconds_count{operation="token",outcome="ok"} 1',
      'pwc_upstream_request_duration_seconds_count{operation="send_message",outcome="ok"} 1',
      'pwc_upstream_request_duration_seconds_count{operation="escalate",outcome="5xx"} 1',
      'pwc_upstream_request_duration_seconds_count{operation="create_conversation",outcome="ok"} 2',
      'pwc_quota_refusals_total{quota="conversations-per-address"} 1',
      'pwc_idempotent_replays_total{operation="send"} 1',
      'pwc_configuration_cache_lookups_total{result="hit"}',
      'pwc_configuration_cache_lookups_total{result="miss"} 1',
      'pwc_upstream_token_valid 1',
      'pwc_session_expired_total 1',
      'pwc_live_streams 0',
      'pwc_live_watches 0',
      'pwc_draining 0',
      'pwc_events_link_up 1',
      'pwc_lost_create_lookup_off_practices 0',
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
    ]) {
      expect(text, series).toContain(series);
    }
    // Unmatched paths collapse into one route value instead of one series per path.
    const routes = new Set([...text.matchAll(/route="([^"]*)"/g)].map((match) => match[1]));
    for (const route of routes) expect(route, 'a route pattern, not a path').not.toMatch(/[A-Za-z0-9_-]{40,}/);
  });

  it('never hold a handle, message text, client address or client_id', async () => {
    const text = await scrape();
    for (const canary of [handle, MESSAGE_CANARY, CLIENT_ADDRESS_CANARY, 'demo-client'])
      expect(text).not.toContain(canary);
  });

  it('are not on the public port', async () => {
    expect((await fetch(`${relay.url}/metrics`)).status).toBe(404);
  });
});
