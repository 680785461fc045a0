// Issue 14, point 5: a wildcard on a public suffix lets every site under it show and frame a practice's widget.
import { describe, expect, it } from 'vitest';
import { createConfigurationService } from '../../../src/relay/configuration/configuration-service.ts';
import { isPublicSuffix, withoutPublicSuffixWildcards } from '../../../src/relay/configuration/public-suffix.ts';
import type { UpstreamClient } from '../../../src/relay/upstream/index.ts';

describe('wildcards on a public suffix are dropped', () => {
  it.each(['co.uk', 'com', 'github.io', 'herokuapp.com', 'blogspot.com', 'com.au', 'netlify.app'])(
    'knows %s is a public suffix',
    (suffix) => {
      expect(isPublicSuffix(suffix)).toBe(true);
    },
  );

  it.each(['smile-dental.co.uk', 'smile-dental.github.io', 'example.com', 'smile-dental.test'])(
    'knows %s is not',
    (host) => {
      expect(isPublicSuffix(host)).toBe(false);
    },
  );

  it('drops *.co.uk, *.github.io and *.herokuapp.com, and keeps wildcards under a practice’s own domain', () => {
    expect(
      withoutPublicSuffixWildcards([
        '*.co.uk',
        '*.github.io',
        '*.herokuapp.com',
        '*.smile-dental.co.uk',
        'smile-dental.github.io',
        '*.smile-dental.github.io',
        'www.smile-dental.test',
      ]),
    ).toEqual(['*.smile-dental.co.uk', 'smile-dental.github.io', '*.smile-dental.github.io', 'www.smile-dental.test']);
  });

  it('the configuration browsers get (and so the frame’s frame-ancestors) never carries such a wildcard', async () => {
    const upstream = {
      getWebchatConfiguration: async (clientId: string) => ({
        id: clientId,
        practice: 'practice-1',
        webchat_domains: [
          '*.co.uk',
          '*.GitHub.io.',
          '*.herokuapp.com',
          '*.smile-dental.co.uk',
          'www.smile-dental.co.uk',
        ].map((domain, index) => ({
          id: String(index),
          domain,
        })),
        logo_signed_url: '',
        webchat_icon_color: '#0f766e',
        webchat_icon_opacity: 100,
        google_tag_id: '',
        is_active: true,
        aimee_bot_name: 'Aimee',
      }),
    } as Pick<UpstreamClient, 'getWebchatConfiguration'> as UpstreamClient;
    const service = createConfigurationService({ upstream, cacheMs: 0, allowLoopbackHttp: false });
    const resolved = await service.get('smile-dental');
    expect(resolved.configuration.domains).toEqual(['*.smile-dental.co.uk', 'www.smile-dental.co.uk']);
  });
});
