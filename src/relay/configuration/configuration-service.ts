// The webchat configuration as the relay serves it: fetched upstream, normalised once with the shared rules, and
// cached per client_id for a short time (well under a signed logo URL's lifetime) together with the logo the relay
// fetched from that URL, with one upstream request in
// flight per client_id however many browsers ask at once. Unknown ids are remembered briefly too, so a flood of
// made-up ids does not turn into a flood of upstream requests.
import { normalizeConfiguration, type WebchatConfiguration } from '../../shared/configuration.ts';
import type { UpstreamClient } from '../upstream/index.ts';
import type { Logo, LogoFetcher } from '../logo/logo-fetcher.ts';
import { type ConfigurationError, configurationErrorFrom } from './configuration-error.ts';
import { withoutPublicSuffixWildcards } from './public-suffix.ts';

export interface ResolvedConfiguration {
  /**
   * What browsers receive, except the logo: `logo_url` is null here, because the upstream's signed storage URL never
   * goes to a browser. Routes give browsers the relay's own logo URL instead (configuration-answer.ts).
   */
  configuration: WebchatConfiguration;
  /** The logo, fetched by the relay with the configuration and refreshed with it; null when there is no usable one. */
  logo: Logo | null;
  /** The practice conversations are created for; stays in the relay. */
  practice: string;
}

export interface ConfigurationService {
  /** The configuration, or a ConfigurationError (`not_found`, `unavailable`). */
  get(clientId: string): Promise<ResolvedConfiguration>;
}

export interface ConfigurationServiceOptions {
  upstream: Pick<UpstreamClient, 'getWebchatConfiguration'>;
  cacheMs: number;
  /** Development keeps http logos on loopback hosts (the embedded simulator's). */
  allowLoopbackHttp: boolean;
  /** Fetches the signed logo URL (no credentials); without it there is no logo. */
  fetchLogo?: LogoFetcher;
  notFoundCacheMs?: number;
  maxEntries?: number;
  now?: () => number;
  /** Each lookup: answered from the cache (a hit, a load in flight included) or loaded (metrics). */
  onLookup?: (result: 'hit' | 'miss') => void;
}

type CacheEntry = { until: number; value: Promise<ResolvedConfiguration> };

export function createConfigurationService({
  upstream,
  cacheMs,
  allowLoopbackHttp,
  fetchLogo = async () => null,
  notFoundCacheMs = Math.min(cacheMs, 30_000),
  maxEntries = 10_000,
  now = Date.now,
  onLookup = () => {},
}: ConfigurationServiceOptions): ConfigurationService {
  const cache = new Map<string, CacheEntry>();

  async function load(
    clientId: string,
    previous: Promise<ResolvedConfiguration> | undefined,
  ): Promise<ResolvedConfiguration> {
    const raw = await upstream.getWebchatConfiguration(clientId);
    const configuration = normalizeConfiguration(
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
    );
    const signedUrl = configuration.logo_url;
    // Fetched once per configuration refresh, whoever asks: the relay's copy outlives the signed URL's expiry. When
    // the storage host fails for a moment, the logo this client already had is kept rather than dropped.
    const logo =
      signedUrl === null
        ? null
        : ((await fetchLogo(signedUrl)) ??
          (await previous?.then(
            (resolved) => resolved.logo,
            () => null,
          )) ??
          null);
    // The shared rules cannot know the Public Suffix List (too big for the browser bundles), so the relay applies it.
    const domains = withoutPublicSuffixWildcards(configuration.domains);
    return { practice: raw.practice, configuration: { ...configuration, domains, logo_url: null }, logo };
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
      if (cached !== undefined && cached.until > now()) {
        onLookup('hit');
        return cached.value;
      }
      onLookup('miss');
      // Until the answer arrives, every caller shares this promise (single flight).
      const value = load(clientId, cached?.value).catch((error: unknown) => {
        // A failed load never stays cached as the in-flight answer; only "not found" is remembered, briefly.
        if (cache.get(clientId)?.value === value) cache.delete(clientId);
        const failure = configurationErrorFrom(error);
        if (failure.code === 'not_found') remember(clientId, settledRejection(failure), now() + notFoundCacheMs);
        throw failure;
      });
      value.then((resolved) => remember(clientId, Promise.resolve(resolved), now() + cacheMs)).catch(() => {});
      remember(clientId, value, Number.POSITIVE_INFINITY);
      return value;
    },
  };
}

/** A rejected promise that can sit in the cache without Node reporting it as unhandled. */
function settledRejection(error: ConfigurationError): Promise<never> {
  const rejected = Promise.reject(error);
  rejected.catch(() => {});
  return rejected;
}
