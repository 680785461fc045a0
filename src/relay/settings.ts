// Every setting of the relay comes from the environment, parsed here once (docs/settings.md lists them). A bad value
// stops the start with a message naming the variable, rather than running with a surprise. Each setting is declared
// once, in its group (settings/); here are the groups read together and the rules that span groups and the mode.
import { LOOPBACK_HOSTS } from '../shared/configuration.ts';
import { secretWeakness } from './secret-strength.ts';
import { embeddedSimulator } from './settings/development.ts';
import { essentials, isDevelopmentMode } from './settings/essentials.ts';
import { limits } from './settings/limits.ts';
import { liveDelivery } from './settings/live.ts';
import { security } from './settings/security.ts';
import { readGroups } from './settings/read-groups.ts';
import { SettingsError } from './settings/settings-error.ts';
import { sharedState } from './settings/shared-state.ts';
import { timing } from './settings/timing.ts';
import type { SettingFacts } from './settings/values.ts';

export { isDevelopmentMode };
export { type SettingProblem, SettingsError } from './settings/settings-error.ts';

/** The relay's settings by purpose, in the order docs/settings.md presents them; a variable is in exactly one. */
const GROUPS = { essentials, limits, timing, liveDelivery, security, sharedState, embeddedSimulator };

/** What docs/settings.md says of each variable, group by group. */
export const SETTINGS_FACTS: readonly { title: string; settings: readonly SettingFacts[] }[] = Object.values(
  GROUPS,
).map((group) => ({ title: group.title, settings: Object.values(group.fields).map((setting) => setting.facts) }));

/** Every environment variable the relay reads (deployment files are checked against it). */
export const SETTING_NAMES: readonly string[] = SETTINGS_FACTS.flatMap((group) =>
  group.settings.map((setting) => setting.variable),
);

function isHttpsOrLoopback(address: string): boolean {
  const url = new URL(address);
  return url.protocol === 'https:' || LOOPBACK_HOSTS.has(url.hostname);
}

export function readSettings(environment: Record<string, string | undefined>, randomSecret: () => Uint8Array) {
  const parsed = readGroups(GROUPS, environment);
  const { nodeEnv, handleSecret, ...essential } = parsed.essentials;
  const { demoPages, allowPlainHttpUpstream, ...exposure } = parsed.security;
  // Metrics on the public port would show every visitor the relay's traffic: a port of their own, or none.
  if (exposure.metrics !== null && exposure.metrics.port === essential.port) {
    throw new SettingsError(
      'METRICS_PORT must differ from PORT: metrics are served on a listener of their own, never the public one.',
    );
  }
  // Safe by default: anything but an explicit development or test mode (unset, "Production", a typo) is production.
  const production = !essential.development;
  const modeName = `NODE_ENV is ${nodeEnv === undefined ? 'unset' : JSON.stringify(nodeEnv)}, so the relay runs as production`;
  if (production && handleSecret === undefined) {
    throw new SettingsError(
      `HANDLE_SECRET is required: ${modeName} (at least 32 random characters, e.g. \`openssl rand -base64 32\`; NODE_ENV=development for a local try).`,
    );
  }
  if (handleSecret !== undefined) {
    const weakness = secretWeakness(handleSecret);
    if (weakness !== null)
      throw new SettingsError(
        `HANDLE_SECRET ${weakness}: use at least 32 random bytes, e.g. \`openssl rand -base64 32\`.`,
      );
  }
  const eventsSecret = parsed.liveDelivery.upstreamEventsSecret;
  if (eventsSecret !== null) {
    const weakness = secretWeakness(eventsSecret);
    if (weakness !== null)
      throw new SettingsError(
        `UPSTREAM_EVENTS_SECRET ${weakness}: use at least 32 random bytes, e.g. \`openssl rand -base64 32\`.`,
      );
  }
  // In production the built-in simulator, with its public demo account, must never stand in for the real service.
  if (production && essential.upstream === null) {
    throw new SettingsError(`UPSTREAM_URL, UPSTREAM_USERNAME and UPSTREAM_PASSWORD are required: ${modeName}.`);
  }
  // The password and the access token travel to the upstream: never in the clear, unless the operator says so by name.
  if (essential.upstream !== null && !isHttpsOrLoopback(essential.upstream.url) && !allowPlainHttpUpstream) {
    throw new SettingsError(
      'UPSTREAM_URL must be https:// (plain http only to a loopback address, or with ALLOW_PLAIN_HTTP_UPSTREAM=true).',
    );
  }
  // Without it the relay would take its origin from the Host header, which a DNS-rebinding page controls.
  if (production && essential.publicOrigin === undefined) {
    throw new SettingsError(
      `PUBLIC_ORIGIN is required: ${modeName} (the relay's address as browsers see it, e.g. https://chat.practice.example).`,
    );
  }
  if (production && essential.publicOrigin !== undefined && !isHttpsOrLoopback(essential.publicOrigin)) {
    throw new SettingsError('PUBLIC_ORIGIN must be https:// in production (plain http only for a loopback address).');
  }
  return {
    ...essential,
    /** The relay's own origin as browsers see it; null means "the origin of each request". */
    publicOrigin: essential.publicOrigin ?? null,
    /** The key material for sealing conversation handles. */
    handleSecret: handleSecret === undefined ? randomSecret() : new TextEncoder().encode(handleSecret),
    handleSecretGenerated: handleSecret === undefined,
    ...parsed.limits,
    ...parsed.timing,
    ...parsed.liveDelivery,
    ...exposure,
    // Tools for whoever runs the relay, not for patients: a production relay serves only what a practice's page needs.
    demoPages: demoPages ?? essential.development,
    ...parsed.sharedState,
    ...parsed.embeddedSimulator,
  };
}

/** Every setting of the relay, typed by the groups' schemas. */
export type RelaySettings = ReturnType<typeof readSettings>;
