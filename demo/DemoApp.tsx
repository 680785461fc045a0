// The demo page: settings on one side, a live preview in a mock practice page on the other (desktop or phone, light
// or dark, English or Spanish), checks, a host tester, the snippet, and a link that shares the preview. Nothing here
// creates a conversation: the preview panel talks to a local preview bot.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { CLIENT_ID_PATTERN, parseWebchatConfiguration } from '../src/shared/configuration.ts';
import { parseApiErrorCode } from '../src/shared/wire-parse.ts';
import { configurationChecks } from './checks.ts';
import { draftFrom, normaliseDraft, type Draft } from './draft.ts';
import { explainHost } from './host-explainer.ts';
import { createPreview, type Preview } from './preview.ts';
import { localeInfo } from '../src/shared/locales/locale-list.ts';
import { DEFAULT_VIEW, parseShareFragment, shareFragment, type View } from './share.ts';
import { ViewSwitches } from './ViewSwitches.tsx';

type LogoState = 'none' | 'loading' | 'ok' | 'failed';

export function DemoApp({ initialClientId }: { initialClientId: string }) {
  // A shared link's settings, read once from the fragment (which never reaches a server).
  const shared = useMemo(() => parseShareFragment(location.hash), []);
  const startClientId = shared?.draft.clientId ?? initialClientId;
  const [clientIdInput, setClientIdInput] = useState(startClientId);
  // On a phone the preview starts in the phone view: the desktop mock page would not fit.
  const [view, setView] = useState<View>(
    shared?.view ?? {
      ...DEFAULT_VIEW,
      device: window.matchMedia?.('(max-width: 600px)').matches ? 'phone' : 'desktop',
    },
  );
  const [loadedClientId, setLoadedClientId] = useState<string | null>(null);
  const mockPage = useRef<HTMLDivElement>(null);
  const closedLook = useRef<HTMLDivElement>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [hostInput, setHostInput] = useState('https://www.smile-dental.com');
  const [logo, setLogo] = useState<LogoState>('none');
  const [copied, setCopied] = useState(false);
  const [sharedCopied, setSharedCopied] = useState(false);
  const preview = useRef<Preview | null>(null);
  const normalised = useMemo(() => (draft ? normaliseDraft(draft) : null), [draft]);

  async function load(clientId: string, overrides: Partial<Draft> = {}) {
    setLoadError(null);
    if (!CLIENT_ID_PATTERN.test(clientId))
      return setLoadError('A client id is letters, digits, dots, dashes and underscores.');
    try {
      const response = await fetch(`/v1/webchat-configuration?client_id=${encodeURIComponent(clientId)}`);
      const body: unknown = await response.json();
      const configuration = response.ok ? parseWebchatConfiguration(body) : null;
      if (!configuration) {
        // Never leave another configuration's preview and snippet on screen under the new client id.
        preview.current?.dispose();
        preview.current = null;
        setDraft(null);
        setLoadedClientId(null);
        const code = parseApiErrorCode(body);
        return setLoadError(
          code === 'not_found'
            ? `No configuration has the client id "${clientId}".`
            : 'The configuration could not be loaded; try again shortly.',
        );
      }
      setDraft({ ...draftFrom(configuration), ...overrides, clientId });
      setLoadedClientId(clientId);
    } catch {
      setLoadError('The relay could not be reached.');
    }
  }

  useEffect(() => {
    void load(startClientId, shared?.draft ?? {});
    return () => preview.current?.dispose();
  }, []);

  // A new preview frame for each client id, language, theme and sample choice (the frame reads them from its address).
  useEffect(() => {
    preview.current?.dispose();
    preview.current = null;
    if (loadedClientId === null || !mockPage.current || !closedLook.current) return;
    preview.current = createPreview(
      window,
      loadedClientId,
      { page: mockPage.current, closedLook: closedLook.current },
      { ...view, sample: view.conversation === 'sample' },
    );
    if (normalised) preview.current.show(normalised.configuration);
  }, [loadedClientId, view.locale, view.theme, view.conversation]);

  useEffect(() => {
    if (normalised) preview.current?.show(normalised.configuration);
  }, [normalised]);

  const logoUrl = normalised?.configuration.logo_url ?? null;
  useEffect(() => {
    if (logoUrl === null) return setLogo('none');
    setLogo('loading');
    const image = new Image();
    image.onload = () => setLogo('ok');
    image.onerror = () => setLogo('failed');
    image.src = logoUrl;
    return () => (image.onload = image.onerror = null);
  }, [logoUrl]);

  const change = <K extends keyof Draft>(key: K, value: Draft[K]) => draft && setDraft({ ...draft, [key]: value });
  const snippet = draft
    ? `<script async src="${location.origin}/loader.js" data-client-id="${draft.clientId}"></script>`
    : '';
  // The logo is served by the relay too, so the relay's origin is all a strict policy needs, images included.
  const cspLines = ['script-src', 'connect-src', 'frame-src', 'img-src']
    .map((directive) => `${directive} ${location.origin};`)
    .join('\n');
  const shareUrl = draft ? `${location.origin}${location.pathname}${shareFragment(draft, view)}` : '';
  const checks = normalised ? configurationChecks(normalised.configuration) : [];
  const hostAnswer = normalised ? explainHost(hostInput, normalised.configuration.domains) : null;
  const note = (key: keyof Draft) =>
    normalised?.notes[key] && (
      <p class="note" id={`${key}-note`} role="status">
        {normalised.notes[key]}
      </p>
    );
  const describedBy = (key: keyof Draft) => (normalised?.notes[key] ? `${key}-note` : undefined);

  return (
    <main class="layout">
      <header class="intro">
        <h1>Preview your chat widget</h1>
        <p class="lead">
          See exactly what patients will see before it goes live. Nothing you do here reaches the practice: the preview
          chat answers with a preview bot.
        </p>
      </header>

      <section class="stage" aria-labelledby="preview-title">
        <h2 id="preview-title">Live preview</h2>
        <ViewSwitches view={view} onChange={setView} />
        <div class="preview-row">
          <section
            class={`mock-page ${view.device} ${view.theme} ${localeInfo(view.locale).dir}`}
            ref={mockPage}
            aria-label="Example practice web page"
          >
            <div class="mock-site" aria-hidden="true">
              <div class="mock-nav">
                <strong>Smile Dental</strong>
                <span>{view.locale === 'es' ? 'Servicios · Equipo · Contacto' : 'Services · Team · Contact'}</span>
              </div>
              <div class="mock-hero">
                <p class="mock-title">
                  {view.locale === 'es'
                    ? 'Cuidado dental para toda la familia'
                    : 'Gentle dental care for the whole family'}
                </p>
                <p>
                  {view.locale === 'es'
                    ? 'Consultas, limpiezas y urgencias, de lunes a sábado.'
                    : 'Check-ups, cleanings and same-day emergencies, Monday to Saturday.'}
                </p>
              </div>
            </div>
          </section>
          <figure class="closed-look">
            <div ref={closedLook} class="closed-place" />
            <figcaption>{view.locale === 'es' ? 'Cerrado' : 'Closed'}</figcaption>
          </figure>
        </div>
      </section>

      <div class="settings">
        <section aria-labelledby="load-title">
          <h2 id="load-title">Configuration</h2>
          <form class="row" onSubmit={(event) => (event.preventDefault(), void load(clientIdInput.trim()))}>
            <label for="client-id">Client id</label>
            <input
              id="client-id"
              value={clientIdInput}
              onInput={(event) => setClientIdInput(event.currentTarget.value)}
              autocomplete="off"
            />
            <button type="submit">Load</button>
          </form>
          {loadError && (
            <p class="problem" role="alert">
              {loadError}
            </p>
          )}
        </section>

        {draft && normalised && (
          <>
            <section aria-labelledby="edit-title">
              <h2 id="edit-title">Edit and watch</h2>
              <p>Every change shows at once in the preview. Its launcher and chat are the real ones: try them.</p>
              <div class="fields">
                <label for="icon-color-text">Icon colour</label>
                <div class="row">
                  <input
                    type="color"
                    aria-label="Icon colour picker"
                    value={normalised.configuration.icon_color.slice(0, 7).padEnd(7, '0')}
                    onInput={(event) => change('iconColor', event.currentTarget.value)}
                  />
                  <input
                    id="icon-color-text"
                    value={draft.iconColor}
                    aria-describedby={describedBy('iconColor')}
                    onInput={(event) => change('iconColor', event.currentTarget.value)}
                  />
                </div>
                {note('iconColor')}

                <label for="opacity">Opacity: {normalised.configuration.icon_opacity}%</label>
                <input
                  id="opacity"
                  type="range"
                  min={0}
                  max={100}
                  step={1}
                  value={draft.iconOpacity}
                  aria-describedby={describedBy('iconOpacity')}
                  onInput={(event) => change('iconOpacity', Number(event.currentTarget.value))}
                />
                {note('iconOpacity')}

                <label for="logo-url">Logo address</label>
                <input
                  id="logo-url"
                  type="url"
                  value={draft.logoUrl}
                  aria-describedby={describedBy('logoUrl')}
                  onInput={(event) => change('logoUrl', event.currentTarget.value)}
                />
                {note('logoUrl')}

                <label for="bot-name">Assistant's name</label>
                <input
                  id="bot-name"
                  value={draft.botName}
                  aria-describedby={describedBy('botName')}
                  onInput={(event) => change('botName', event.currentTarget.value)}
                />
                {note('botName')}

                <label class="check">
                  <input
                    type="checkbox"
                    checked={draft.active}
                    onChange={(event) => change('active', event.currentTarget.checked)}
                  />{' '}
                  Active
                </label>

                <label for="domains">Allowed websites (one host per line)</label>
                <textarea
                  id="domains"
                  rows={4}
                  value={draft.domains}
                  aria-describedby={describedBy('domains')}
                  onInput={(event) => change('domains', event.currentTarget.value)}
                />
                {note('domains')}
              </div>
            </section>

            <section aria-labelledby="checks-title">
              <h2 id="checks-title">Checks</h2>
              <ul class="checks">
                {checks.map((check) => (
                  <li key={check.text} class={check.ok ? 'ok' : 'warn'}>
                    <span aria-hidden="true">{check.ok ? '✓' : '!'}</span> {check.ok ? '' : 'Warning: '}
                    {check.text}
                  </li>
                ))}
                {logo === 'failed' && (
                  <li class="warn">
                    <span aria-hidden="true">!</span> Warning: the logo did not load; patients will see the chat icon.
                  </li>
                )}
                {logo === 'ok' && (
                  <li class="ok">
                    <span aria-hidden="true">✓</span> The logo loads.
                  </li>
                )}
              </ul>
            </section>

            <section aria-labelledby="host-title">
              <h2 id="host-title">Would the widget show on…</h2>
              <label for="host-input">Website address</label>
              <input id="host-input" value={hostInput} onInput={(event) => setHostInput(event.currentTarget.value)} />
              {hostAnswer && (
                <p class={hostAnswer.shows ? 'answer ok' : 'answer warn'} role="status" id="host-answer">
                  {hostAnswer.explanation}
                </p>
              )}
            </section>

            <section aria-labelledby="snippet-title">
              <h2 id="snippet-title">Add it to your website</h2>
              <p>Paste this tag into your website's pages:</p>
              <pre id="snippet">{snippet}</pre>
              <button
                type="button"
                onClick={() =>
                  void navigator.clipboard?.writeText(snippet).then(
                    () => setCopied(true),
                    () => setCopied(false),
                  )
                }
              >
                Copy the tag
              </button>
              <span role="status">{copied ? ' Copied.' : ''}</span>
              <p>If your website has a Content-Security-Policy, add these sources to it:</p>
              <pre id="csp">{cspLines}</pre>
            </section>

            <section aria-labelledby="share-title">
              <h2 id="share-title">Share this preview</h2>
              <p>
                This link opens the preview with your edits and switches. The settings travel in the part after #, which
                browsers never send to a server.
              </p>
              <a id="share-link" href={shareUrl}>
                Link to this preview
              </a>{' '}
              <button
                type="button"
                onClick={() =>
                  void navigator.clipboard?.writeText(shareUrl).then(
                    () => setSharedCopied(true),
                    () => setSharedCopied(false),
                  )
                }
              >
                Copy the link
              </button>
              <span role="status">{sharedCopied ? ' Copied.' : ''}</span>
            </section>
          </>
        )}
      </div>
    </main>
  );
}
