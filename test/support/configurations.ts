// Smile Dental's configuration as the relay holds it (what the frame reads) and as it answers the loader (with the
// launcher's look worked out, in English), for the frame's and the loader's tests alike.
import type { WebchatConfiguration } from '../../src/shared/configuration.ts';
import type { ConfigurationAnswer } from '../../src/shared/launcher-look.ts';

export const smileDentalConfiguration: WebchatConfiguration = {
  client_id: 'smile-dental',
  is_active: true,
  domains: ['www.smile-dental.test'],
  logo_url: null,
  icon_color: '#1d4ed8',
  icon_opacity: 90,
  bot_name: 'Sunny',
  google_tag_id: null,
};

export const smileDentalAnswer: ConfigurationAnswer = {
  ...smileDentalConfiguration,
  launcher: {
    background: '#1d4ed8',
    color: '#ffffff',
    opacity: 0.9,
    label: 'Chat with Sunny',
    locale: 'en',
    dir: 'ltr',
  },
};
