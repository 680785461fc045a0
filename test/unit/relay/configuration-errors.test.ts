// The configuration service speaks its own errors (not found, unavailable) and knows nothing of HTTP; the routes
// turn them into answers. A store or service that threw the HTTP layer's errors would tie every caller to HTTP.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/relay/configuration/configuration-error.ts';
import { createConfigurationService } from '../../../src/relay/configuration/configuration-service.ts';
import { ApiError } from '../../../src/relay/http/api-error.ts';
import { apiErrorFromConfiguration } from '../../../src/relay/routes/configuration-errors.ts';
import { UpstreamError, type UpstreamClient } from '../../../src/relay/upstream/index.ts';

const PATH = '/api/conversations/webchat-configuration/';

/** A service whose upstream always fails with `failure`, counting the requests it gets. */
function failingService(failure: UpstreamError) {
  const asked = { count: 0 };
  const upstream: Pick<UpstreamClient, 'getWebchatConfiguration'> = {
    getWebchatConfiguration: async () => {
      asked.count += 1;
      throw failure;
    },
  };
  const service = createConfigurationService({ upstream, cacheMs: 60_000, allowLoopbackHttp: false });
  return { service, asked };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the configuration should not load'),
    (error: unknown) => error,
  );
}

describe('the configuration service raises its own errors', () => {
  it.each([
    ['no such client_id', new UpstreamError('upstream_not_found', { path: PATH, status: 404 })],
    ['a practice the account cannot see', new UpstreamError('upstream_forbidden', { path: PATH, status: 403 })],
  ])('%s is a ConfigurationError not_found, remembered without asking upstream again', async (_why, upstream) => {
    const { service, asked } = failingService(upstream);
    const first = await failureOf(service.get('nobody-here'));
    expect(first).toBeInstanceOf(ConfigurationError);
    expect(first).not.toBeInstanceOf(ApiError);
    expect(first).toMatchObject({ code: 'not_found', upstream });
    expect(await failureOf(service.get('nobody-here'))).toBe(first);
    expect(asked.count).toBe(1);
  });

  it('an upstream that fails is a ConfigurationError unavailable, and the next request asks again', async () => {
    const upstream = new UpstreamError('upstream_timeout', { path: PATH });
    const { service, asked } = failingService(upstream);
    expect(await failureOf(service.get('smile-dental'))).toMatchObject({ code: 'unavailable', upstream });
    await failureOf(service.get('smile-dental'));
    expect(asked.count).toBe(2);
  });

  it('a bug is not called a missing configuration: it comes out as itself', async () => {
    const upstream: Pick<UpstreamClient, 'getWebchatConfiguration'> = {
      getWebchatConfiguration: async () => {
        throw new TypeError('a bug');
      },
    };
    const service = createConfigurationService({ upstream, cacheMs: 60_000, allowLoopbackHttp: false });
    expect(await failureOf(service.get('smile-dental'))).toBeInstanceOf(TypeError);
  });

  it('imports nothing of the HTTP layer', () => {
    const folder = fileURLToPath(new URL('../../../src/relay/configuration/', import.meta.url));
    const reachingForHttp = readdirSync(folder).filter((file) =>
      /from '\.\.\/(http|routes)\//.test(readFileSync(folder + file, 'utf8')),
    );
    expect(reachingForHttp).toEqual([]);
  });
});

describe('the route maps them', () => {
  it('not_found is 404 not_found, with the upstream cause for the log', () => {
    const error = new ConfigurationError(
      'not_found',
      new UpstreamError('upstream_forbidden', { path: PATH, status: 403 }),
    );
    expect(apiErrorFromConfiguration(error)).toMatchObject({ code: 'not_found', reason: 'http_403' });
  });

  it('unavailable is the upstream failure’s own answer, with its wait', () => {
    const timeout = new ConfigurationError('unavailable', new UpstreamError('upstream_timeout', { path: PATH }));
    expect(apiErrorFromConfiguration(timeout)).toMatchObject({ code: 'upstream_timeout', reason: 'timeout' });
    const limited = new UpstreamError('upstream_rate_limited', { path: PATH, status: 429, retryAfterSeconds: 30 });
    expect(apiErrorFromConfiguration(new ConfigurationError('unavailable', limited))).toMatchObject({
      code: 'upstream_unavailable',
      retryAfterSeconds: 30,
      reason: 'http_429',
    });
  });
});
