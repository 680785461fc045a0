// `npm run simulator -- --events-url URL --events-secret SECRET`: both or neither, checked like the other flags, and
// a started simulator sends its signed events there.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSimulatorArgs, SIMULATOR_USAGE } from '../../../src/simulator/cli-options.ts';
import { startEventListener } from './events-listener.ts';

const parse = (...args: string[]) => parseSimulatorArgs(args);
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('--events-url and --events-secret', () => {
  it('are taken together', () => {
    expect(parse('--events-url', 'http://127.0.0.1:8787/v1/upstream-events', '--events-secret', 's3cret')).toEqual({
      ok: true,
      options: {
        port: 8788,
        host: '127.0.0.1',
        faults: {},
        events: { url: 'http://127.0.0.1:8787/v1/upstream-events', secret: 's3cret' },
      },
    });
    expect(SIMULATOR_USAGE).toMatch(/--events-url URL/);
    expect(SIMULATOR_USAGE).toMatch(/--events-secret SECRET/);
  });

  it.each([
    [['--events-url', 'http://127.0.0.1:8787/v1/upstream-events'], /--events-url needs the events secret/],
    [['--events-secret', 's3cret'], /--events-url and --events-secret go together/],
    [
      ['--events-url', 'ftp://127.0.0.1/x', '--events-secret', 's3cret'],
      /--events-url must be an http:\/\/ or https:\/\/ URL/,
    ],
    [['--events-url', 'not a url', '--events-secret', 's3cret'], /--events-url must be an http:\/\/ or https:\/\/ URL/],
    [['--events-url', 'http://127.0.0.1/x', '--events-secret', ''], /--events-secret must not be empty/],
    [['--events-url'], /events-url/],
  ])('refuse %j with a message that names the flag', (args, message) => {
    const result = parse(...args);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatch(message);
      expect(result.error).not.toContain('s3cret');
    }
  });

  it('a started simulator sends signed events to the URL, and prints the staff page’s address', async () => {
    const listener = await startEventListener();
    cleanups.push(() => listener.close());
    const main = fileURLToPath(new URL('../../../src/simulator/main.ts', import.meta.url));
    const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
    const secret = 'cli-events-secret';
    const child = spawn(
      tsx,
      [main, '--port', '0', '--events-url', `${listener.url}/v1/upstream-events`, '--events-secret', secret],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cleanups.push(() => void child.kill('SIGTERM'));
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)[\s\S]*Upstream events: POST/.exec(output);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`simulator exited ${code}: ${output}`)));
    });
    expect(output).toContain(`Staff page (play the practice's team member): ${url}/staff`);
    expect(output).not.toContain(secret);

    expect((await fetch(`${url}/staff/api/conversations`)).status).toBe(200);
    const token = (
      (await (
        await fetch(`${url}/api/oauth/token/`, {
          method: 'POST',
          body: new URLSearchParams({ username: 'demo@practice.example', password: 'demo-password' }),
        })
      ).json()) as { access_token: string }
    ).access_token;
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const { id } = (await (
      await fetch(`${url}/api/conversations/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ practice: 'prc_3fa81d2c', channel: 'webchat' }),
      })
    ).json()) as { id: string };
    expect((await fetch(`${url}/api/conversations/${id}/resolve/`, { method: 'POST', headers })).status).toBe(200);

    const end = Date.now() + 10_000;
    while (listener.received.length === 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
    const [event] = listener.received;
    expect(event?.path).toBe('/v1/upstream-events');
    const [, t, mac] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(event?.headers['upstream-signature'])) ?? [];
    expect(mac).toBe(createHmac('sha256', secret).update(`${t}.${event!.raw}`).digest('hex'));
    expect(JSON.parse(event!.raw)).toMatchObject({ type: 'conversation.status_changed', conversation: id });
  }, 30_000);
});
