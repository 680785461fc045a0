// @vitest-environment happy-dom
// Where the panel's words come from, and the switch that changes them: every catalog read (from the page or the
// relay) is parsed, a failed switch keeps the language and says so, a patient's pick is remembered for the tab.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { useState } from 'preact/hooks';
import { App } from '../../../src/frame/components/App.tsx';
import {
  applyLocale,
  fetchLocale,
  inlineLocale,
  parseLoadedLocale,
  rememberedLocale,
  rememberLocale,
} from '../../../src/frame/locale-source.ts';
import type { Locale } from '../../../src/frame/i18n.ts';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { configuration, createTestModel } from '../frame/fakes.ts';
import { STRINGS } from '../frame/strings.ts';

afterEach(cleanup);

const answer = (body: unknown, status = 200) =>
  (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;

describe('parseLoadedLocale', () => {
  it('takes a locale we have with a whole catalog', () => {
    expect(parseLoadedLocale({ locale: 'fa', catalog: CATALOGS.fa })).toEqual({ locale: 'fa', catalog: CATALOGS.fa });
  });

  it.each([
    ['a locale we do not have', { locale: 'nl', catalog: CATALOGS.en }],
    ['a region tag', { locale: 'zh-TW', catalog: CATALOGS['zh-Hant'] }],
    ['a catalog with a missing text', { locale: 'es', catalog: { ...CATALOGS.es, send: undefined } }],
    ['no catalog', { locale: 'es' }],
    ['not an object', 'es'],
    ['null', null],
  ])('refuses %s', (_what, value) => {
    expect(parseLoadedLocale(value)).toBeNull();
  });
});

describe('inlineLocale', () => {
  it('reads the JSON block the relay wrote, and nothing malformed', () => {
    document.body.innerHTML = `<script type="application/json" id="locale">${JSON.stringify({ locale: 'ko', catalog: CATALOGS.ko })}</script>`;
    expect(inlineLocale(document)?.locale).toBe('ko');
    document.body.innerHTML = '<script type="application/json" id="locale">{"locale": "ko", </script>';
    expect(inlineLocale(document)).toBeNull();
    document.body.innerHTML = '';
    expect(inlineLocale(document)).toBeNull();
  });
});

describe('fetchLocale', () => {
  it('asks the relay for exactly that language and takes only that language', async () => {
    const asked: string[] = [];
    const fetchImpl = (async (input: RequestInfo | URL) => {
      asked.push(String(input));
      return new Response(JSON.stringify({ locale: 'ar', catalog: CATALOGS.ar }));
    }) as typeof fetch;
    expect((await fetchLocale(fetchImpl, 'ar'))?.catalog).toEqual(CATALOGS.ar);
    expect(asked).toEqual(['/v1/locales/ar']);
    // An answer for another language than the one asked for is not used.
    expect(await fetchLocale(fetchImpl, 'fa')).toBeNull();
  });

  it('answers null on an error status, a malformed body or no network', async () => {
    expect(await fetchLocale(answer({ error: { code: 'not_found' } }, 404), 'de')).toBeNull();
    expect(await fetchLocale(answer({ locale: 'de', catalog: {} }), 'de')).toBeNull();
    expect(await fetchLocale((async () => new Response('<html>')) as unknown as typeof fetch, 'de')).toBeNull();
    expect(
      await fetchLocale((async () => Promise.reject(new TypeError('offline'))) as unknown as typeof fetch, 'de'),
    ).toBeNull();
  });
});

describe('the document and the remembered pick', () => {
  it('sets lang and dir', () => {
    applyLocale(document, 'fa');
    expect([document.documentElement.lang, document.documentElement.dir]).toEqual(['fa', 'rtl']);
    applyLocale(document, 'pl');
    expect([document.documentElement.lang, document.documentElement.dir]).toEqual(['pl', 'ltr']);
  });

  it('remembers a locale we have, ignores anything else, and never throws', () => {
    sessionStorage.clear();
    expect(rememberedLocale(sessionStorage)).toBeNull();
    rememberLocale(sessionStorage, 'vi');
    expect(rememberedLocale(sessionStorage)).toBe('vi');
    sessionStorage.setItem('practice-chat:locale', 'xx');
    expect(rememberedLocale(sessionStorage)).toBeNull();
    const blocked = {
      getItem: () => {
        throw new DOMException('denied');
      },
      setItem: () => {
        throw new DOMException('denied');
      },
    };
    expect(rememberedLocale(blocked)).toBeNull();
    expect(() => rememberLocale(blocked, 'vi')).not.toThrow();
    expect(rememberedLocale(null)).toBeNull();
  });
});

describe('the language switch in the panel', () => {
  function Panel({ load }: { load: (tag: Locale) => boolean }) {
    // One model for the panel's life, as main.tsx has: only the words change.
    const [test] = useState(() => {
      const made = createTestModel();
      made.model.setPanelOpen(true);
      return made;
    });
    const [locale, setLocale] = useState<Locale>('en');
    return (
      <App
        model={test.model}
        configuration={configuration}
        strings={STRINGS[locale]}
        locale={locale}
        maxLength={2000}
        onClose={() => {}}
        refreshLogo={async () => null}
        onLanguage={async (tag) => {
          if (!load(tag)) return false;
          setLocale(tag);
          return true;
        }}
      />
    );
  }

  it('lists every language in its own name and lang, and redraws the panel in the one picked', async () => {
    const picked: string[] = [];
    render(<Panel load={(tag) => (picked.push(tag), true)} />);
    const select = screen.getByRole('combobox', { name: 'Language' }) as HTMLSelectElement;
    const options = [...select.options].map((option) => [option.value, option.lang, option.textContent]);
    expect(options).toHaveLength(17);
    expect(options).toContainEqual(['ar', 'ar', 'العربية']);
    expect(options).toContainEqual(['zh-Hant', 'zh-Hant', '繁體中文']);
    fireEvent.change(select, { target: { value: 'es' } });
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Idioma' })).toBeTruthy());
    expect(picked).toEqual(['es']);
    expect(screen.getByRole('button', { name: 'Cerrar el chat' })).toBeTruthy();
  });

  it('keeps the language and says so when the words cannot be loaded', async () => {
    render(<Panel load={() => false} />);
    const select = screen.getByRole('combobox', { name: 'Language' }) as HTMLSelectElement;
    fireEvent.change(select, { target: { value: 'ja' } });
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(STRINGS.en.languageFailed));
    expect(select.value).toBe('en');
  });

  it("offers no switch when the page gives none (the demo's preview)", () => {
    const test = createTestModel();
    render(
      <App
        model={test.model}
        configuration={configuration}
        strings={STRINGS.en}
        locale="en"
        maxLength={2000}
        onClose={() => {}}
        refreshLogo={async () => null}
      />,
    );
    expect(screen.queryByRole('combobox')).toBeNull();
  });
});
