// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { mountLauncher } from '../../../src/loader/launcher.ts';
import type { ConfigurationAnswer } from '../../../src/shared/launcher-look.ts';

const configuration: ConfigurationAnswer = {
  client_id: 'demo-client',
  is_active: true,
  domains: ['localhost'],
  logo_url: null,
  icon_color: '#fde047',
  icon_opacity: 100,
  bot_name: 'Aimee',
  google_tag_id: null,
  launcher: { background: '#fde047', color: '#111111', opacity: 1, label: 'Chat with Aimee', locale: 'en', dir: 'ltr' },
};

afterEach(() =>
  document.querySelectorAll('practice-chat-q7x').forEach((element) => {
    element.remove();
  }),
);

describe('the launcher', () => {
  it('shows the unread count the frame reports, and names it for screen readers', () => {
    const launcher = mountLauncher(document, configuration, '');
    const badge = launcher.shadow.querySelector('span')!;
    expect(badge.hidden).toBe(true);
    launcher.setUnread(3);
    expect([badge.hidden, badge.textContent, launcher.button.getAttribute('aria-label')]).toEqual([
      false,
      '3',
      'Chat with Aimee (3)',
    ]);
    launcher.setUnread(250);
    expect(badge.textContent).toBe('99+');
    launcher.setUnread(0);
    expect([badge.hidden, launcher.button.getAttribute('aria-label')]).toEqual([true, 'Chat with Aimee']);
  });

  it('says whether the panel is open', () => {
    const launcher = mountLauncher(document, configuration, '');
    launcher.setOpen(true);
    expect(launcher.button.getAttribute('aria-expanded')).toBe('true');
    launcher.setOpen(false);
    expect(launcher.button.getAttribute('aria-expanded')).toBe('false');
  });

  it('is a real button, with no markup parsed from strings, which the caller puts in the page', () => {
    const launcher = mountLauncher(document, { ...configuration, bot_name: '<img src=x onerror=alert(1)>' }, '');
    expect(launcher.host.isConnected).toBe(false);
    expect(launcher.button.type).toBe('button');
    expect(launcher.shadow.querySelector('img')).toBeNull();
  });
});
