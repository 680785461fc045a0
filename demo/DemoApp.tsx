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
import { DEFAULT_VIEW, parseShareFragment, shareFragment, type View } from './share.ts';
import { ChecksList, type LogoState } from './ChecksList.tsx';
import { ConfigurationFields } from './ConfigurationFields.tsx';
import { PreviewStage } from './PreviewStage.tsx';

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

  return (
    <main class="layout">
      <header class="intro">
        <h1>Preview your chat widget</h1>
        <p class="lead">
          See exactly what patients will see before it goes live. Nothing you do here reaches the practice: the preview
          chat answers with a preview bot.
        </p>
      </header>

      <PreviewStage view={view} onViewChange={setView} mockPageRef={mockPage} closedLookRef={closedLook} />

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
            <ConfigurationFields draft={draft} normalised={normalised} change={change} />

            <ChecksList checks={checks} logo={logo} />

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
