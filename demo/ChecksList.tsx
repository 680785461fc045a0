// The checks on the configuration (checks.ts), and whether its logo loads.
import type { Check } from './checks.ts';

export type LogoState = 'none' | 'loading' | 'ok' | 'failed';

export function ChecksList({ checks, logo }: { checks: Check[]; logo: LogoState }) {
  return (
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
  );
}
