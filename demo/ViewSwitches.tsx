// The preview's switches: which device, theme and language the mock practice page shows. Radio groups, so each is
// one Tab stop with arrow keys inside, and a screen reader says which choice is on.
import type { View } from './share.ts';
import { LOCALE_TAGS, localeInfo } from '../src/shared/locales/locale-list.ts';

const GROUPS = [
  {
    key: 'device',
    legend: 'Device',
    options: [
      ['desktop', 'Desktop'],
      ['phone', 'Phone'],
    ],
  },
  {
    key: 'theme',
    legend: 'Theme',
    options: [
      ['light', 'Light'],
      ['dark', 'Dark'],
    ],
  },
  // Each language named in itself, as the panel's own switch names it.
  {
    key: 'locale',
    legend: "Patient's language",
    options: LOCALE_TAGS.map((tag) => [tag, localeInfo(tag).autonym] as const),
  },
  {
    key: 'conversation',
    legend: 'Panel shows',
    options: [
      ['greeting', 'Greeting'],
      ['sample', 'Sample chat'],
    ],
  },
] as const;

export function ViewSwitches({ view, onChange }: { view: View; onChange: (next: View) => void }) {
  return (
    <div class="switches">
      {GROUPS.map((group) => (
        <fieldset key={group.key}>
          <legend>{group.legend}</legend>
          {group.options.map(([value, label]) => (
            <label
              key={value}
              lang={group.key === 'locale' ? value : undefined}
              dir={group.key === 'locale' ? localeInfo(value as View['locale']).dir : undefined}
            >
              <input
                type="radio"
                name={group.key}
                value={value}
                checked={view[group.key] === value}
                onChange={() => onChange({ ...view, [group.key]: value })}
              />
              <span>{label}</span>
            </label>
          ))}
        </fieldset>
      ))}
    </div>
  );
}
