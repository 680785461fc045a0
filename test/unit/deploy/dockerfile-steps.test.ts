// deploy/Dockerfile's exact steps, without Docker (this machine has no container runtime): each stage in a directory
// of its own, each COPY from the build context (the repository's tracked files less .dockerignore) or from an earlier
// stage, each RUN in that stage's directory with the stage's ENV, then the CMD started as the image would start it.
// The runtime stage must answer /healthz and serve the loader, and hold no development dependency.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { freePort } from '../../support/free-port.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'relay-dockerfile-'));
const cleanups: (() => unknown)[] = [() => rmSync(work, { recursive: true, force: true })];
// The work tree holds two stages' installs (tens of thousands of files): removing it took over Vitest's 10 s default for
// a hook on a machine whose disk and cores the other files keep busy.
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
}, 120_000);

interface Stage {
  name: string;
  dir: string;
  env: Record<string, string>;
  cmd?: string[];
  user?: string;
}

/** The build context: tracked files, less what .dockerignore names (its entries are top-level names and globs). */
function buildContext(): string {
  const context = join(work, 'context');
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const isIgnored = (path: string) =>
    ignored.some((pattern) =>
      pattern.startsWith('*.') ? path.endsWith(pattern.slice(1)) : path === pattern || path.startsWith(`${pattern}/`),
    );
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((path) => path !== '' && !isIgnored(path));
  for (const file of files) {
    if (!existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(context, file)), { recursive: true });
    cpSync(join(ROOT, file), join(context, file));
  }
  return context;
}

/** Runs the Dockerfile's instructions; returns the last stage. Only the instructions the Dockerfile uses are known. */
function runDockerfile(context: string): Stage {
  const lines = readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [instruction, ...rest] = line.trim().split(/\s+/);
    const argument = line.trim().slice(instruction!.length).trim();
    const stage = stages.at(-1);
    switch (instruction) {
      case 'FROM': {
        const name = rest[2] ?? `stage-${stages.length}`;
        const dir = join(work, name);
        mkdirSync(dir, { recursive: true });
        stages.push({ name, dir, env: {} });
        break;
      }
      case 'WORKDIR':
        break; // each stage's directory stands for its WORKDIR (/app)
      case 'ENV': {
        const [key, value] = argument.split('=');
        stage!.env[key!] = value!;
        break;
      }
      case 'COPY': {
        const from = rest[0]!.startsWith('--from=')
          ? stages.find((candidate) => candidate.name === rest[0]!.slice('--from='.length))
          : undefined;
        const parts = from === undefined ? rest : rest.slice(1);
        const destination = parts.at(-1)!;
        for (const source of parts.slice(0, -1)) {
          const sourcePath =
            from === undefined ? join(context, source) : join(from.dir, source.replace(/^\/app\/?/, ''));
          const target = destination.endsWith('/')
            ? join(stage!.dir, destination, source.split('/').at(-1)!)
            : join(stage!.dir, destination);
          cpSync(sourcePath, source === '.' ? stage!.dir : target, { recursive: true });
        }
        break;
      }
      case 'RUN':
        execFileSync('sh', ['-c', argument], {
          cwd: stage!.dir,
          env: { ...process.env, ...stage!.env },
          stdio: 'pipe',
          timeout: 240_000,
        });
        break;
      case 'USER':
        stage!.user = argument;
        break;
      case 'CMD':
        stage!.cmd = JSON.parse(argument) as string[];
        break;
      case 'EXPOSE':
      case 'HEALTHCHECK':
        break; // checked below, against the running stage
      default:
        throw new Error(`the test does not know the Dockerfile instruction ${instruction}`);
    }
  }
  return stages.at(-1)!;
}

it('the Dockerfile builds in a clean copy, and its runtime stage starts with production dependencies only', async () => {
  const runtime = runDockerfile(buildContext());
  expect(runtime.name).toBe('runtime');
  expect(runtime.user).toBe('node');
  expect(runtime.cmd).toEqual(['node', 'dist-server/server.js']);
  for (const devOnly of ['tsx', 'vite', 'vitest', 'typescript', 'playwright-core'])
    expect(existsSync(join(runtime.dir, 'node_modules', devOnly)), devOnly).toBe(false);
  expect(existsSync(join(runtime.dir, 'src')), 'no sources in the image').toBe(false);
  // No simulator code: no built file from src/simulator/, nor its seeded account or staff page.
  const built = readdirSync(join(runtime.dir, 'dist-server'), { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.js'),
  );
  expect(built).toEqual(['server.js']);
  const sources = (
    JSON.parse(readFileSync(join(runtime.dir, 'dist-server/server.js.map'), 'utf8')) as { sources: string[] }
  ).sources;
  expect(sources.filter((source) => source.includes('/src/simulator/'))).toEqual([]);
  expect(readFileSync(join(runtime.dir, 'dist-server/server.js'), 'utf8')).not.toContain('demo-password');

  const simulator = await startSimulatorServer();
  cleanups.push(() => simulator.close());
  const port = await freePort();
  const relay = spawn(runtime.cmd![0]!, runtime.cmd!.slice(1), {
    cwd: runtime.dir,
    env: {
      PATH: process.env.PATH,
      ...runtime.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
      HANDLE_SECRET: 'Pq3vR8tY2wK6yR0pL3sX9bN5cF7hJ1dG+eA2uT8oY4k=',
      UPSTREAM_URL: simulator.url,
      UPSTREAM_USERNAME: simulator.simulator.seed.username,
      UPSTREAM_PASSWORD: simulator.simulator.seed.password,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => relay.kill('SIGKILL'));
  let output = '';
  relay.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  relay.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 15_000;
  while (
    (await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.status,
      () => 0,
    )) !== 200
  ) {
    if (Date.now() > deadline || relay.exitCode !== null)
      throw new Error(`the runtime stage did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect((await fetch(`http://127.0.0.1:${port}/loader.js`)).status).toBe(200);
  expect((await fetch(`http://127.0.0.1:${port}/frame?client_id=demo-client`)).status).toBe(200);
  // The HEALTHCHECK's own command, as the container runtime would run it.
  const healthcheck = /HEALTHCHECK .* CMD (\[.*\])$/m.exec(readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8'))?.[1];
  const [command, ...args] = JSON.parse(healthcheck!) as string[];
  expect(() =>
    execFileSync(command!, args, { env: { ...process.env, PORT: String(port) }, timeout: 10_000 }),
  ).not.toThrow();
}, 300_000);
