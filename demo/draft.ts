// What a practice types into the demo, turned into the configuration patients would get, with the same shared
// normalisation the relay applies, and a plain-language note for every value that changes on the way.
import {
  DEFAULT_BOT_NAME,
  DEFAULT_ICON_COLOR,
  normalizeConfiguration,
  type WebchatConfiguration,
} from '../src/shared/configuration.ts';
import { normalizeDomainEntry } from '../src/shared/domains.ts';

export interface Draft {
  clientId: string;
  iconColor: string;
  /** As typed in the slider or number box. */
  iconOpacity: number;
  logoUrl: string;
  botName: string;
  active: boolean;
  /** One entry per line. */
  domains: string;
  googleTagId: string;
}

export interface Normalised {
  configuration: WebchatConfiguration;
  /** Field → what happened to the typed value, for the ones that changed. */
  notes: Partial<Record<keyof Draft, string>>;
}

export function draftFrom(configuration: WebchatConfiguration): Draft {
  return {
    clientId: configuration.client_id,
    iconColor: configuration.icon_color,
    iconOpacity: configuration.icon_opacity,
    logoUrl: configuration.logo_url ?? '',
    botName: configuration.bot_name,
    active: configuration.is_active,
    domains: configuration.domains.join('\n'),
    googleTagId: configuration.google_tag_id ?? '',
  };
}

export function normaliseDraft(draft: Draft): Normalised {
  const domainLines = draft.domains
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const configuration = normalizeConfiguration(
    {
      client_id: draft.clientId,
      is_active: draft.active,
      domains: domainLines,
      logo_url: draft.logoUrl.trim() === '' ? null : draft.logoUrl.trim(),
      icon_color: draft.iconColor,
      icon_opacity: draft.iconOpacity,
      bot_name: draft.botName,
      google_tag_id: draft.googleTagId,
    },
    // The demo runs beside the development simulator, whose logos are http on loopback; the relay decides in production.
    true,
  );
  const notes: Normalised['notes'] = {};
  if (configuration.icon_color !== draft.iconColor.trim().toLowerCase()) {
    notes.iconColor = `"${draft.iconColor}" is not a hex colour (#rgb, #rrggbb, with optional alpha), so the widget uses the default ${DEFAULT_ICON_COLOR}.`;
  }
  if (configuration.icon_opacity !== draft.iconOpacity)
    notes.iconOpacity = `Opacity is a whole percentage from 0 to 100: the widget uses ${configuration.icon_opacity}%.`;
  if (draft.logoUrl.trim() !== '' && configuration.logo_url === null)
    notes.logoUrl = 'Only https: logo addresses are used; the widget shows its chat icon instead.';
  if (configuration.bot_name !== draft.botName) {
    notes.botName =
      draft.botName.trim() === ''
        ? `An empty name becomes "${DEFAULT_BOT_NAME}".`
        : `Shown as "${configuration.bot_name}" (plain text, at most 40 characters).`;
  }
  const dropped = domainLines.filter((line) => normalizeDomainEntry(line) === null);
  if (dropped.length > 0) {
    notes.domains = `Not used: ${dropped.map((line) => `"${line}"`).join(', ')}. An entry is a host name like www.example.com or *.example.com: no https://, port, path, IP address or bare *.`;
  } else if (configuration.domains.length === 0) {
    notes.domains = 'No domains: the widget will not show on any website.';
  }
  if (draft.googleTagId.trim() !== '' && configuration.google_tag_id === null)
    notes.googleTagId = 'Not a Google tag id (like G-ABC123): no analytics will be sent.';
  return { configuration, notes };
}
