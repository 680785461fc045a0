// The webchat configuration as the relay serves it: fetched upstream, normalised once with the shared rules, and
// cached per client_id for a short time (well under a signed logo URL's lifetime), with one upstream request in
// flight per client_id however many browsers ask at once. Unknown ids are remembered briefly too, so a flood of
// made-up ids does not turn into a flood of upstream requests.
import { normalizeConfiguration, type WebchatConfiguration } from '../../shared/configuration.ts';
import type { UpstreamClient } from '../upstream/index.ts';
import type { ApiError } from '../http/api-error.ts';
import { apiErrorFromUpstream } from '../http/upstream-errors.ts';

export interface ResolvedConfiguration {
  /** What browsers receive. */
  configuration: WebchatConfiguration;
  /** The practice conversations are created for; stays in the relay. */
  practice: string;
}

export interface ConfigurationService {
  /** The configuration, or an ApiError (`not_found`, `upstream_unavailable`, `upstream_timeout`). */
  get(clientId: string): Promise<ResolvedConfiguration>;
}

export interface ConfigurationServiceOptions {
  upstream: Pick<UpstreamClient, 'getWebchatConfiguration'>;
  cacheMs: number;
  /** Development keeps http logos on loopback hosts (the embedded simulator's). */
  allowLoopbackHttp: boolean;
  notFoundCacheMs?: number;
  maxEntries?: number;
  now?: () => number;
}

type CacheEntry = { until: number; value: Promise<ResolvedConfiguration> };

export function createConfigurationService({
  upstream,
  cacheMs,
  allowLoopbackHttp,
  notFoundCacheMs = Math.min(cacheMs, 30_000),
  maxEntries = 10_000,
  now = Date.now,
}: ConfigurationServiceOptions): ConfigurationService {
  const cache = new Map<string, CacheEntry>();

  async function load(clientId: string): Promise<ResolvedConfiguration> {
    const raw = await upstream.getWebchatConfiguration(clientId);
    return {
      practice: raw.practice,
      configuration: normalizeConfiguration(
        {
          client_id: clientId,
          is_active: raw.is_active,
          domains: raw.webchat_domains.map((entry) => entry.domain),
          logo_url: raw.logo_signed_url,
          icon_color: raw.webchat_icon_color,
          icon_opacity: raw.webchat_icon_opacity,
          bot_name: raw.aimee_bot_name,
          google_tag_id: raw.google_tag_id,
        },
        allowLoopbackHttp,
      ),
    };
  }

  function remember(clientId: string, value: Promise<ResolvedConfiguration>, until: number): void {
    cache.delete(clientId);
    if (cache.size >= maxEntries) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(clientId, { until, value });
  }

  return {
    get(clientId) {
      const cached = cache.get(clientId);
      if (cached !== undefined && cached.until > now()) return cached.value;
      // Until the answer arrives, every caller shares this promise (single flight).
      const value = load(clientId).catch((error: unknown) => {
        // A failed load never stays cached as the in-flight answer; only "not found" is remembered, briefly.
        if (cache.get(clientId)?.value === value) cache.delete(clientId);
        const apiError = apiErrorFromUpstream(error);
        if (apiError.code === 'not_found') remember(clientId, settledRejection(apiError), now() + notFoundCacheMs);
        throw apiError;
      });
      value.then((resolved) => remember(clientId, Promise.resolve(resolved), now() + cacheMs)).catch(() => {});
      remember(clientId, value, Number.POSITIVE_INFINITY);
      return value;
    },
  };
}

/** A rejected promise that can sit in the cache without Node reporting it as unhandled. */
function settledRejection(error: ApiError): Promise<never> {
  const rejected = Promise.reject(error);
  rejected.catch(() => {});
  return rejected;
}
