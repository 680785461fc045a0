// The simulator's staff page in real Chromium: a newcomer plays the practice's team member. It lists conversations,
// shows one as it grows, and a reply typed there (keyboard only) reaches the conversation, read back through the
// simulator's upstream API as the relay would read it; axe-core finds nothing to fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage } from './harness.ts';
import { axeViolations } from './axe.ts';
import { startSimulatorServer, type SimulatorServer } from '../../src/simulator/server.ts';

let browser: Browser;
let upstream: SimulatorServer;
let token: string;

beforeAll(async () => {
  [browser, upstream] = await Promise.all([
    borrowChromium(),
    startSimulatorServer({ port: 0, botReplyDelayMs: 50, agentJoinDelayMs: 60_000 }),
  ]);
  const { username, password } = upstream.simulator.seed;
  const answer = await fetch(`${upstream.url}/api/oauth/token/`, {
    method: 'POST',
    body: new URLSearchParams({ username, password }),
  });
  token = ((await answer.json()) as { access_token: string }).access_token;
});

afterAll(async () => {
  await Promise.all([giveBackChromium(browser), upstream?.close()]);
});

/** The upstream API, with the seeded account's token: what the relay sees. */
async function api<T>(path: string, method = 'GET', body?: unknown): Promise<T> {
  const response = await fetch(upstream.url + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as T;
}

async function openConversation(practice: string, visitorText: string, language?: string): Promise<string> {
  const { id } = await api<{ id: string }>('/api/conversations/', 'POST', {
    practice,
    channel: 'webchat',
    ...(language && { language }),
  });
  await api(`/api/conversations/${id}/messages/`, 'POST', { text: visitorText, sender: 'visitor' });
  return id;
}

describe('the simulator’s staff page', () => {
  it('lists conversations newest first; a reply typed there reaches the conversation; resolve; no axe violations', async () => {
    const visitorText = 'When are you open? <img src=x onerror="document.title=\'pwned\'">';
    const older = await openConversation(upstream.simulator.seed.grantedPracticeId, 'An older question');
    const id = await openConversation(upstream.simulator.seed.smileDentalPracticeId, visitorText, 'es');
    const { context, page, consoleLines } = await openPage(browser);
    try {
      await page.goto(`${upstream.url}/staff`);
      const items = page.locator('#conversation-list button');
      await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(2);
      expect(await items.nth(0).innerText()).toContain(id);
      expect(await items.nth(1).innerText()).toContain(older);
      expect(await items.nth(0).innerText()).toMatch(/Smile Dental[\s\S]*open · bot mode/);
      // Each conversation's language, as the relay told the service: English when it said none.
      expect(await items.nth(0).innerText()).toContain('Spanish (es)');
      expect(await items.nth(1).innerText()).toContain('English (en)');

      // Keyboard only: from the top of the page to the newest conversation, then to the reply box.
      await page.keyboard.press('Tab');
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent ?? '')).toContain(id);
      await page.keyboard.press('Enter');
      const log = page.getByRole('log', { name: 'Messages' });
      await expect.poll(() => log.innerText(), { timeout: 10_000 }).toContain('Sunny (bot)');
      // Message text is shown as text, never as markup.
      expect(await log.locator('.text').first().textContent()).toBe(visitorText);
      expect(await log.locator('img').count()).toBe(0);

      const reply = page.getByLabel('Reply as Grace');
      await reply.focus();
      await page.keyboard.type('Hello, this is Grace. We open at 8 tomorrow.');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Send reply');
      await page.keyboard.press('Enter');

      type Messages = { results: Array<{ sender: string; author_name: string; text: string }> };
      await expect
        .poll(async () => (await api<Messages>(`/api/conversations/${id}/messages/?after=0`)).results.at(-1), {
          timeout: 10_000,
        })
        .toEqual(
          expect.objectContaining({
            sender: 'agent',
            author_name: 'Grace',
            text: 'Hello, this is Grace. We open at 8 tomorrow.',
          }),
        );
      expect(await api<{ mode: string }>(`/api/conversations/${id}/`)).toMatchObject({ mode: 'agent', status: 'open' });
      await expect.poll(() => log.innerText()).toContain('Grace (team member)');
      await expect.poll(() => reply.inputValue()).toBe('');
      // The conversation grows on the page as the visitor writes on.
      await api(`/api/conversations/${id}/messages/`, 'POST', { text: 'Thank you!', sender: 'visitor' });
      await expect.poll(() => log.innerText(), { timeout: 10_000 }).toContain('Thank you!');
      expect(await axeViolations(page)).toEqual([]);

      await page.getByRole('button', { name: 'Resolve conversation' }).press('Enter');
      await expect
        .poll(async () => (await api<{ status: string }>(`/api/conversations/${id}/`)).status, { timeout: 10_000 })
        .toBe('resolved');
      await expect.poll(() => reply.isDisabled()).toBe(true);
      await expect.poll(() => items.nth(0).innerText(), { timeout: 10_000 }).toMatch(/resolved · agent mode/);
      expect(await axeViolations(page)).toEqual([]);

      expect(await page.title()).not.toBe('pwned');
      expect(consoleLines.filter((line) => /Content Security Policy|Refused/i.test(line))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
