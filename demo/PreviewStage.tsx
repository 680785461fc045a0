// The live preview: the view switches, a mock practice page that holds the panel, and the closed launcher beside it.
// The preview (preview.ts) draws into the two boxes named by the refs.
import type { RefObject } from 'preact';
import { localeInfo } from '../src/shared/locales/locale-list.ts';
import type { View } from './share.ts';
import { ViewSwitches } from './ViewSwitches.tsx';

interface PreviewStageProps {
  view: View;
  onViewChange: (view: View) => void;
  mockPageRef: RefObject<HTMLDivElement | null>;
  closedLookRef: RefObject<HTMLDivElement | null>;
}

export function PreviewStage({ view, onViewChange, mockPageRef, closedLookRef }: PreviewStageProps) {
  return (
    <section class="stage" aria-labelledby="preview-title">
      <h2 id="preview-title">Live preview</h2>
      <ViewSwitches view={view} onChange={onViewChange} />
      <div class="preview-row">
        <section
          class={`mock-page ${view.device} ${view.theme} ${localeInfo(view.locale).dir}`}
          ref={mockPageRef}
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
          <div ref={closedLookRef} class="closed-place" />
          <figcaption>{view.locale === 'es' ? 'Cerrado' : 'Closed'}</figcaption>
        </figure>
      </div>
    </section>
  );
}
