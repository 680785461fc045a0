// What browsers receive of a configuration, from GET /v1/webchat-configuration and inside the frame page alike: the
// logo on the relay's origin, and the launcher's look precomputed with the shared rules so the loader stays small.
import { withLauncherLook, type ConfigurationAnswer } from '../../shared/launcher-look.ts';
import type { LocaleTag } from '../../shared/locales/locale-list.ts';
import type { WebchatConfiguration } from '../../shared/configuration.ts';
import { relayLogoUrl } from '../logo/logo-url.ts';
import type { ResolvedConfiguration } from './configuration-service.ts';

/** `publicOrigin` null (development): the logo is on the origin this request came to. `locale`: the visitor's. */
export function configurationAnswer(
  resolved: ResolvedConfiguration,
  publicOrigin: string | null,
  requestUrl: string,
  locale?: LocaleTag,
): ConfigurationAnswer {
  return withLauncherLook(browserConfiguration(resolved, publicOrigin ?? new URL(requestUrl).origin), locale);
}

/** The configuration as browsers receive it: the logo, when there is a usable one, on the relay's origin. */
export function browserConfiguration(
  { configuration, logo }: ResolvedConfiguration,
  relayOrigin: string,
): WebchatConfiguration {
  return {
    ...configuration,
    logo_url: logo === null ? null : relayLogoUrl(relayOrigin, configuration.client_id, logo.hash),
  };
}
