// `npm run serve`: the relay from the built JavaScript in dist-server/, with no transpiler or bundler in the process;
// in production mode without the demo pages. Needs `npm run build` (npm test runs it first).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { freePort } from '../../support/free-port.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RECORDER = fileURLToPath(new URL('../../support/record-modules.mjs', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'serve-built-'));
let child: ChildProcess | undefined;
let production: ChildProcess | undefined;
let simulator: Awaited<ReturnType<typeof startSimulatorServer>> | undefined;

async function stop(process: ChildProcess | undefined): Promise<void> {
  if (!process || process.exitCode !== null) return;
  const exited = new Promise((done) => process.once('exit', done));
  process.kill('SIGTERM');
  await exited;
}

afterAll(async () => {
  await stop(child);
  await stop(production);
  await simulator?.close();
  rmSync(temp, { recursive: true, force: true });
});

/** Output until `pattern` shows up (or the process ends). */
function waitFor(process: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = pattern.exec(output);
      if (match) resolve(match);
    };
    process.stdout?.on('data', onData);
    process.stderr?.on('data', onData);
    process.once('exit', (code) => reject(new Error(`exited with ${code} before ${pattern}:\n${output}`)));
  });
}

it('npm run serve starts the relay from built JavaScript, with no TypeScript transpiler or bundler loaded', async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(existsSync(join(ROOT, 'dist-server/server.js')), 'run `npm run build` first').toBe(true);

  const modulesFile = join(temp, 'modules.txt');
  // The script's own command, run without npm in between, so that stopping it stops the relay itself.
  const [command, ...args] = (pkg.scripts.serve ?? '').split(' ');
  expect(command).toBe('node');
  // The built relay embeds no simulator: it is given one, as it would be given the service.
  simulator ??= await startSimulatorServer({ port: 0 });
  child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      UPSTREAM_URL: simulator.url,
      UPSTREAM_USERNAME: simulator.simulator.seed.username,
      UPSTREAM_PASSWORD: simulator.simulator.seed.password,
      NODE_OPTIONS: `--import=${RECORDER}`,
      RECORD_MODULES_TO: modulesFile,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [, url] = await waitFor(child, /Relay listening on (http:\/\/[^\s"]+)/);

  const health = await fetch(`${url}/healthz`);
  expect(health.status).toBe(200);
  const configuration = await fetch(`${url}/v1/webchat-configuration?client_id=demo-client`);
  expect(configuration.status).toBe(200);
  const loader = await fetch(`${url}/loader.js`, { headers: { 'Accept-Encoding': 'br' } });
  expect(loader.headers.get('Content-Encoding')).toBe('br');
  // The loader's second file, which loader.js fetches on intent from any practice's page: compressed, cached for a
  // year (its name carries its content's hash), and loadable by pages that require a resource policy.
  const frameCodeName = readdirSync(join(ROOT, 'dist', 'assets')).find((file) => /^loader-frame-.+\.js$/.test(file));
  const frameCode = await fetch(`${url}/assets/${frameCodeName}`, { headers: { 'Accept-Encoding': 'br' } });
  expect([
    frameCode.status,
    frameCode.headers.get('Content-Encoding'),
    frameCode.headers.get('Cache-Control'),
    frameCode.headers.get('Cross-Origin-Resource-Policy'),
  ]).toEqual([200, 'br', 'public, max-age=31536000, immutable', 'cross-origin']);

  const modules = readFileSync(modulesFile, 'utf8').split('\n').filter(Boolean);
  expect(modules.some((module) => module.endsWith('/dist-server/server.js'))).toBe(true);
  const ours = modules.filter((module) => module.startsWith('file:') && !module.includes('/node_modules/'));
  expect(ours.filter((module) => /\.tsx?$/.test(module))).toEqual([]);
  expect(
    modules.filter((module) => /\/node_modules\/(tsx|esbuild|@esbuild|typescript|vite|rolldown|@oxc)/.test(module)),
  ).toEqual([]);
}, 30_000);

it('the built relay carries no simulator code, and without an upstream it refuses to start, saying why', async () => {
  // Every file `npm run build` leaves in dist-server/, which a relay deployed from a checkout runs: no simulator file
  // beside server.js (its own build, npm run build:simulator, writes dist-simulator/), and no simulator code in any.
  const files = readdirSync(join(ROOT, 'dist-server'), { recursive: true, encoding: 'utf8' });
  expect(files.filter((file) => /simulator/i.test(file))).toEqual([]);
  const relayFiles = files.filter((file) => file.endsWith('.js'));
  expect(relayFiles).toContain('server.js');
  const sources = relayFiles.flatMap(
    (file) =>
      (JSON.parse(readFileSync(join(ROOT, 'dist-server', `${file}.map`), 'utf8')) as { sources: string[] }).sources,
  );
  expect(sources.some((source) => source.includes('/src/relay/'))).toBe(true);
  expect(sources.filter((source) => source.includes('/src/simulator/'))).toEqual([]);
  for (const file of relayFiles) {
    const built = readFileSync(join(ROOT, 'dist-server', file), 'utf8');
    // The seeded account's password and the staff page: simulator code whatever the module names.
    expect(built, file).not.toContain('demo-password');
    expect(built, file).not.toContain('/staff/api');
  }
  const withoutUpstream = spawn(process.execPath, ['dist-server/server.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: 'development', PORT: '0', SIMULATOR_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  withoutUpstream.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => withoutUpstream.once('exit', resolve));
  expect(code).toBe(1);
  expect(output).toMatch(
    /UPSTREAM_URL, UPSTREAM_USERNAME and UPSTREAM_PASSWORD are required: this build of the relay has no built-in simulator/,
  );
}, 30_000);

it('in production (NODE_ENV=production) it serves no demo, try or index page, and no demo asset', async () => {
  simulator ??= await startSimulatorServer({ port: 0 });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  production = spawn(process.execPath, ['dist-server/server.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      PUBLIC_ORIGIN: origin,
      HANDLE_SECRET: randomBytes(32).toString('base64url'),
      UPSTREAM_URL: simulator.url,
      UPSTREAM_USERNAME: simulator.simulator.seed.username,
      UPSTREAM_PASSWORD: simulator.simulator.seed.password,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  production.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  await waitFor(production, /Relay listening on/);

  expect((await fetch(`${origin}/healthz`)).status).toBe(200);
  expect((await fetch(`${origin}/readyz`)).status).toBe(200);
  const demoAsset = /src="(\/assets\/demo-[^"]+)"/.exec(readFileSync(join(ROOT, 'dist/demo/index.html'), 'utf8'))?.[1];
  expect(demoAsset).toBeDefined();
  for (const path of ['/', '/try', '/demo', '/demo/', demoAsset!])
    expect((await fetch(`${origin}${path}`)).status, path).toBe(404);
  expect((await fetch(`${origin}/loader.js`)).status).toBe(200);
  expect((await fetch(`${origin}/frame?client_id=demo-client`)).status).toBe(200);
  expect((await fetch(`${origin}/v1/webchat-configuration?client_id=demo-client`)).status).toBe(200);
  // In production stdout is for a log collector: JSON lines only, the addresses included (issue 19).
  await new Promise((resolve) => setTimeout(resolve, 200));
  const lines = stdout.split('\n').filter((line) => line !== '');
  expect(lines.length).toBeGreaterThan(3);
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  expect(lines.map((line) => JSON.parse(line) as { url?: string }).find((line) => line.url !== undefined)?.url).toMatch(
    /^http:\/\/127\.0\.0\.1:\d+$/,
  );
}, 30_000);

it('npm run build:simulator builds the simulator apart, into dist-simulator/, and it runs with no transpiler', async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(pkg.scripts['build:simulator']).toBe('vite build --mode simulator');
  expect(pkg.scripts.build).not.toMatch(/--mode simulator/);
  const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
  const build = spawn(process.execPath, [vite, 'build', '--mode', 'simulator', '--logLevel', 'error'], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  expect(await new Promise((resolve) => build.once('exit', resolve))).toBe(0);
  expect(existsSync(join(ROOT, 'dist-server/simulator.js'))).toBe(false);
  const modulesFile = join(temp, 'simulator-modules.txt');
  const built = spawn(process.execPath, ['--import', RECORDER, 'dist-simulator/simulator.js', '--port', '0'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, RECORD_MODULES_TO: modulesFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const [, url] = await waitFor(built, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const answer = await fetch(`${url}/api/oauth/token/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'demo@practice.example', password: 'demo-password' }),
    });
    expect(answer.status).toBe(200);
    const modules = readFileSync(modulesFile, 'utf8').split('\n').filter(Boolean);
    expect(modules.some((module) => module.endsWith('/dist-simulator/simulator.js'))).toBe(true);
    expect(modules.filter((module) => /\.tsx?$|\/node_modules\/(tsx|esbuild|typescript|vite)\//.test(module))).toEqual(
      [],
    );
  } finally {
    await stop(built);
  }
}, 60_000);
