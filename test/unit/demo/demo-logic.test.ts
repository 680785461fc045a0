import { describe, expect, it } from 'vitest';
import { draftFrom, normaliseDraft } from '../../../demo/draft.ts';
import { explainHost } from '../../../demo/host-explainer.ts';
import { configurationChecks } from '../../../demo/checks.ts';
import { DEFAULT_ICON_COLOR, normalizeConfiguration, normalizeIconColor } from '../../../src/shared/configuration.ts';
import { contrastRatio, hexToRgb } from '../../../src/shared/contrast.ts';
import { launcherLook } from '../../../src/shared/launcher-look.ts';

const base = normalizeConfiguration(
  {
    client_id: 'demo-client',
    is_active: true,
    domains: ['smile-dental.com', '*.smile-dental.test'],
    logo_url: null,
    icon_color: '#0f766e',
    icon_opacity: 100,
    bot_name: 'Aimee',
    google_tag_id: '',
  },
  false,
);

describe('normaliseDraft', () => {
  it('changes nothing, and says nothing, for good values', () => {
    const { configuration, notes } = normaliseDraft(draftFrom(base));
    expect(configuration).toEqual(base);
    expect(notes).toEqual({});
  });

  it('shows what a bad colour becomes, and why', () => {
    const { configuration, notes } = normaliseDraft({ ...draftFrom(base), iconColor: 'red;background:url(x)' });
    expect(configuration.icon_color).toBe('#0f766e');
    expect(notes.iconColor).toMatch(/not a hex colour.*default #0f766e/);
  });

  it('names the domain entries it drops', () => {
    const { configuration, notes } = normaliseDraft({
      ...draftFrom(base),
      domains: 'https://smile.com/x\nwww.smile.com\n*',
    });
    expect(configuration.domains).toEqual(['www.smile.com']);
    expect(notes.domains).toMatch(/"https:\/\/smile\.com\/x", "\*"/);
  });

  it('explains odd opacity, logo, name and tag values', () => {
    const { notes } = normaliseDraft({
      ...draftFrom(base),
      iconOpacity: 150,
      logoUrl: 'javascript:alert(1)',
      botName: '  ',
      googleTagId: 'GTM-1',
    });
    expect(Object.keys(notes).sort()).toEqual(['botName', 'googleTagId', 'iconOpacity', 'logoUrl']);
  });
});

describe('explainHost', () => {
  const domains = ['smile-dental.com', '*.smile-dental.test'];
  it.each([
    ['https://smile-dental.com', true, /listed exactly/],
    ['https://booking.smile-dental.test/page?x=1', true, /subdomain of smile-dental\.test.*wildcard/],
    ['https://smile-dental.test', false, /covers subdomains of smile-dental\.test, not smile-dental\.test itself/],
    ['https://www.smile-dental.com', false, /no implicit www/],
    ['https://smile-dental.com.evil.example', false, /not one of the allowed domains/],
    ['not a url at all %%%', false, /not a website address/],
    ['not a url at all', false, /not a website address/],
  ])('%s → %s', (input, shows, explanation) => {
    const answer = explainHost(input, domains);
    expect(answer.shows).toBe(shows);
    expect(answer.explanation).toMatch(explanation);
  });

  it('says so when no domains are allowed', () => {
    expect(explainHost('smile-dental.com', [])).toEqual({
      shows: false,
      explanation: expect.stringMatching(/no domains/),
    });
  });
});

describe('configurationChecks', () => {
  it('passes a readable, visible, active configuration', () => {
    expect(configurationChecks(base).every((check) => check.ok)).toBe(true);
  });

  it('warns about text contrast below AA, a faint launcher, and an inactive widget', () => {
    const checks = configurationChecks({ ...base, icon_color: '#7a7a7a', icon_opacity: 30, is_active: false });
    expect(checks.filter((check) => !check.ok).map((check) => check.text)).toEqual([
      expect.stringMatching(/below WCAG AA/),
      expect.stringMatching(/hard to see/),
      expect.stringMatching(/Not active/),
    ]);
  });
});

describe('what the launcher really draws', () => {
  it('a colour with alpha is refused by the shared normalisation, so the relay, the loader and the demo see the default', () => {
    expect(normalizeIconColor('#1d4ed840')).toBe(DEFAULT_ICON_COLOR);
    expect(normalizeIconColor('#abcd')).toBe(DEFAULT_ICON_COLOR);
  });

  it('opacity 0 is drawn at the floor that keeps the icon at 3:1 over black, white and saturated pages, and the demo says so', () => {
    const look = launcherLook({ ...base, icon_color: '#1d4ed8', icon_opacity: 0 });
    expect(look.opacity).toBeGreaterThan(0);
    const blend = (top: string, page: number[]) =>
      `#${hexToRgb(top)
        .map((channel, i) =>
          Math.round(channel * look.opacity + page[i]! * (1 - look.opacity))
            .toString(16)
            .padStart(2, '0'),
        )
        .join('')}`;
    for (const page of [
      [255, 255, 255],
      [0, 0, 0],
      [29, 78, 216],
      [255, 0, 0],
      [128, 128, 128],
    ]) {
      expect(contrastRatio(blend(look.color, page), blend(look.background, page))).toBeGreaterThanOrEqual(3);
    }
    const opacity = configurationChecks({ ...base, icon_color: '#1d4ed8', icon_opacity: 0 }).find((check) =>
      /opacity/.test(check.text),
    )!;
    expect(opacity).toEqual({
      ok: false,
      text: expect.stringMatching(new RegExp(`drawn at ${Math.round(look.opacity * 100)}%`)),
    });
  });
});
