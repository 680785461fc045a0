// `npm run simulator` takes the fault knobs as flags, and a bad flag stops it with a message that names the flag.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSimulatorArgs } from '../../../src/simulator/cli-options.ts';

const parse = (...args: string[]) => parseSimulatorArgs(args);

describe('npm run simulator flags', () => {
  it('takes every fault knob as a flag', () => {
    expect(
      parse(
        '--port',
        '0',
        '--latency-ms',
        '250',
        '--error-rate',
        '0.1',
        '--rate-limit-rate',
        '0.05',
        '--retry-after-seconds',
        '3',
        '--drop-rate',
        '0.02',
        '--drop-after-handling-rate',
        '0.03',
        '--error-after-handling-rate',
        '0.01',
        '--bad-gateway-after-handling-rate',
        '0.04',
        '--fault-paths',
        'messages',
        '--fault-methods',
        'post,GET',
        '--ignore-client-reference',
        '--seed',
        '7',
      ),
    ).toEqual({
      ok: true,
      options: {
        port: 0,
        host: '127.0.0.1',
        randomSeed: 7,
        faults: {
          latencyMs: 250,
          errorRate: 0.1,
          rateLimitRate: 0.05,
          retryAfterSeconds: 3,
          dropRate: 0.02,
          dropAfterHandlingRate: 0.03,
          errorAfterHandlingRate: 0.01,
          badGatewayAfterHandlingRate: 0.04,
          match: /messages/,
          methods: ['POST', 'GET'],
          ignoreClientReference: true,
        },
      },
    });
  });

  it('defaults to port 8788, loopback and no faults', () => {
    expect(parse()).toEqual({ ok: true, options: { port: 8788, host: '127.0.0.1', faults: {} } });
  });

  it.each([
    [['--error-rate', '10'], /--error-rate must be a share from 0 to 1/],
    [['--error-rate', ''], /--error-rate must be a share/],
    [['--drop-rate=-0.1'], /--drop-rate must be a share/],
    [['--rate-limit-rate', 'abc'], /--rate-limit-rate must be a share/],
    [['--drop-after-handling-rate', 'NaN'], /--drop-after-handling-rate must be a share/],
    [['--latency-ms', '1.5'], /--latency-ms must be a whole number/],
    [['--latency-ms', '-5'], /latency-ms/],
    [['--port', '70000'], /--port must be a whole number from 0 to 65535/],
    [['--fault-paths', '('], /--fault-paths must be a regular expression/],
    [['--bad-gateway-after-handling-rate', '2'], /--bad-gateway-after-handling-rate must be a share/],
    [['--fault-methods', 'POST,TRACE'], /--fault-methods must list methods/],
    [['--error-rate', '0.5', '--bad-gateway-after-handling-rate', '0.6'], /add up to 1.1/],
    [['--error-rate', '0.6', '--drop-rate', '0.6'], /add up to 1.2/],
    [['--eror-rate', '0.1'], /eror-rate/],
    [['--error-rate'], /error-rate/],
    [['stray'], /stray/],
  ])('refuses %j with a message that names the flag', (args, message) => {
    const result = parse(...args);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(message);
  });

  it('a started simulator applies the flags: --error-rate 1 answers 500, and a bad flag exits 2 with the message', async () => {
    const main = fileURLToPath(new URL('../../../src/simulator/main.ts', import.meta.url));
    const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
    const child = spawn(tsx, [main, '--port', '0', '--error-rate', '1', '--fault-paths', 'calls'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`simulator exited ${code}: ${output}`)));
      });
      expect((await fetch(`${url}/api/calls/`)).status).toBe(500);
      // Not matched by --fault-paths: the normal answer (401 without a token).
      expect((await fetch(`${url}/api/conversations/`)).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    const bad = spawn(tsx, [main, '--error-rate', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    bad.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => bad.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--error-rate must be a share from 0 to 1/);
  }, 30_000);
});

describe('npm run simulator: the events secret and stopping', () => {
  const files: Record<string, string> = { '/run/secrets/events': 'from-a-file-0123456789abcdef0123456789\n' };
  const sources = (env: Record<string, string>) => ({
    env,
    readFile: (path: string) =>
      files[path] ??
      (() => {
        throw new Error('no file');
      })(),
  });

  it('takes the events secret from the environment or a file, so it never shows in ps', () => {
    const url = 'http://127.0.0.1:8787/v1/upstream-events';
    expect(
      parseSimulatorArgs(
        ['--events-url', url],
        sources({ UPSTREAM_EVENTS_SECRET: 'from-the-environment-0123456789abcdef' }),
      ),
    ).toMatchObject({
      ok: true,
      options: { events: { url, secret: 'from-the-environment-0123456789abcdef' } },
    });
    expect(
      parseSimulatorArgs(['--events-url', url, '--events-secret-file', '/run/secrets/events'], sources({})),
    ).toMatchObject({
      ok: true,
      options: { events: { url, secret: 'from-a-file-0123456789abcdef0123456789' } },
    });
    expect(parseSimulatorArgs(['--events-url', url], sources({}))).toMatchObject({
      ok: false,
      error: expect.stringContaining('UPSTREAM_EVENTS_SECRET'),
    });
    expect(parseSimulatorArgs(['--events-url', url, '--events-secret-file', '/nowhere'], sources({}))).toMatchObject({
      ok: false,
      error: expect.stringContaining('cannot read'),
    });
  });

  it('SIGTERM to `npm run simulator` stops the simulator itself, not only npm', async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const npm = spawn('npm', ['run', '--silent', 'simulator', '--', '--port', '0'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the simulator did not start: ${output}`)), 20_000);
      npm.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    npm.kill('SIGTERM');
    const answers = () =>
      fetch(`${url}/staff`).then(
        () => true,
        () => false,
      );
    const end = Date.now() + 10_000;
    while ((await answers()) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await answers()).toBe(false);
  }, 40_000);
});
