// The configuration's fields, each with the note that says how the preview reads what was typed (draft.ts).
import type { Draft, Normalised } from './draft.ts';

interface ConfigurationFieldsProps {
  draft: Draft;
  normalised: Normalised;
  change: <K extends keyof Draft>(key: K, value: Draft[K]) => void;
}

export function ConfigurationFields({ draft, normalised, change }: ConfigurationFieldsProps) {
  const note = (key: keyof Draft) =>
    normalised.notes[key] && (
      <p class="note" id={`${key}-note`} role="status">
        {normalised.notes[key]}
      </p>
    );
  const describedBy = (key: keyof Draft) => (normalised.notes[key] ? `${key}-note` : undefined);

  return (
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
  );
}
