// The deployment files in deploy/ say what the relay really does: every variable they set is a setting the relay
// reads, the probes and health checks hit the paths and ports it serves, Redis is configured as docs/deploying.md asks
// and not published, and the stop timeouts leave room for SHUTDOWN_GRACE_MS. (No container runtime here: the files are
// parsed and checked; the Dockerfile's steps and the nginx configuration are run by the other tests in this folder.)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { SETTING_NAMES } from '../../../src/relay/settings.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');

/** The variables the relay reads. */
const SETTINGS = new Set(SETTING_NAMES);
/** The stop may take up to this long past SHUTDOWN_GRACE_MS (src/server.ts STOP_BACKSTOP_AFTER_GRACE_MS). */
const STOP_PAST_GRACE_SECONDS = 1.5;

type Env = Record<string, string>;

describe('compose.yaml', () => {
  const compose = parse(read('deploy/compose.yaml'), { merge: true }) as {
    services: Record<
      string,
      {
        environment?: Env;
        command?: string[];
        ports?: string[];
        stop_grace_period?: string;
        build?: { dockerfile: string };
      }
    >;
  };
  const relays = Object.entries(compose.services).filter(([name]) => name.startsWith('relay-'));

  it('runs two relays from the Dockerfile, with only settings the relay reads', () => {
    expect(relays).toHaveLength(2);
    for (const [, relay] of relays) {
      expect(relay.build?.dockerfile).toBe('deploy/Dockerfile');
      for (const name of Object.keys(relay.environment ?? {})) expect(SETTINGS, name).toContain(name);
      expect(relay.environment).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: '8787' });
      expect(relay.environment?.TRUST_PROXY).toMatch(/^[\d./]+$/);
      expect(relay.environment?.REDIS_URL).toMatch(/^redis:\/\/:\$\{REDIS_PASSWORD/);
      const grace = Number(relay.environment?.SHUTDOWN_GRACE_MS) / 1000;
      expect(Number.parseInt(relay.stop_grace_period ?? '0', 10)).toBeGreaterThanOrEqual(
        grace + STOP_PAST_GRACE_SECONDS + 1,
      );
    }
  });

  it('configures Redis as docs/deploying.md asks (persistence, noeviction, a password) and does not publish it', () => {
    const redis = compose.services.redis!;
    const command = redis.command!.join(' ');
    for (const setting of [
      '--appendonly yes',
      '--maxmemory-policy noeviction',
      '--requirepass ${REDIS_PASSWORD',
      '--protected-mode yes',
    ])
      expect(command).toContain(setting);
    expect(redis.ports).toBeUndefined();
  });

  it('publishes only nginx, and nginx uses the shipped configuration', () => {
    const published = Object.entries(compose.services)
      .filter(([, service]) => service.ports !== undefined)
      .map(([name]) => name);
    expect(published).toEqual(['nginx']);
    expect(read('deploy/compose.yaml')).toContain('./nginx/relay.conf:/etc/nginx/conf.d/default.conf:ro');
  });
});

describe('secrets in deploy/.env', () => {
  it('are ignored by git and kept out of the Docker build context', () => {
    for (const path of ['deploy/.env', '.env', 'deploy/.env.production']) {
      expect(
        execFileSync('git', ['check-ignore', '--no-index', path], { cwd: ROOT, encoding: 'utf8' }).trim(),
        path,
      ).toBe(path);
    }
    const patterns = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    expect(patterns).toContain('**/.env');
    expect(patterns).toContain('**/.env.*');
  });

  it('the relays get the events secret and live delivery is on', () => {
    const compose = parse(read('deploy/compose.yaml'), { merge: true }) as {
      services: Record<string, { environment?: Env }>;
    };
    for (const [name, service] of Object.entries(compose.services).filter(([candidate]) =>
      candidate.startsWith('relay-'),
    )) {
      expect(service.environment?.UPSTREAM_EVENTS_SECRET, name).toMatch(/^\$\{UPSTREAM_EVENTS_SECRET:\?/);
      expect(service.environment?.KEEP_ALIVE_TIMEOUT_MS, name).toBe('65000');
    }
    const secret = parse(read('deploy/kubernetes/secret.example.yaml')) as { stringData: Env };
    expect(secret.stringData.UPSTREAM_EVENTS_SECRET).toMatch(/REPLACE/);
  });
});

describe('kubernetes/', () => {
  const deployment = parse(read('deploy/kubernetes/deployment.yaml')) as {
    spec: { template: { spec: { terminationGracePeriodSeconds: number; containers: Array<Record<string, any>> } } };
  };
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0]!;
  const env = Object.fromEntries(
    (container.env as { name: string; value: string }[]).map(({ name, value }) => [name, value]),
  );
  const portNamed = (name: string) =>
    (container.ports as { name: string; containerPort: number }[]).find((port) => port.name === name)?.containerPort;

  it('sets only settings the relay reads, and the probes hit /readyz and /healthz on the port PORT says', () => {
    for (const name of Object.keys(env)) expect(SETTINGS, name).toContain(name);
    expect(portNamed('http')).toBe(Number(env.PORT));
    expect(portNamed('metrics')).toBe(Number(env.METRICS_PORT));
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
  });

  it('gives the stop room: terminationGracePeriodSeconds covers preStop, SHUTDOWN_GRACE_MS and the stop after it', () => {
    const preStop = container.lifecycle.preStop.sleep.seconds as number;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
      preStop + Number(env.SHUTDOWN_GRACE_MS) / 1000 + STOP_PAST_GRACE_SECONDS + 1,
    );
  });

  it('runs as non-root with a read-only root filesystem and no capabilities', () => {
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('names in the Secret example every setting production requires, as placeholders', () => {
    const secret = parse(read('deploy/kubernetes/secret.example.yaml')) as { stringData: Env };
    for (const name of [
      'PUBLIC_ORIGIN',
      'HANDLE_SECRET',
      'UPSTREAM_URL',
      'UPSTREAM_USERNAME',
      'UPSTREAM_PASSWORD',
      'REDIS_URL',
    ])
      expect(Object.keys(secret.stringData)).toContain(name);
    for (const name of Object.keys(secret.stringData)) expect(SETTINGS, name).toContain(name);
    expect(secret.stringData.HANDLE_SECRET).toMatch(/REPLACE/);
  });

  it('parses: the Service, the PodDisruptionBudget and the NetworkPolicy', () => {
    for (const file of ['service.yaml', 'pdb.yaml', 'networkpolicy.yaml']) {
      const documents = parseAllDocuments(read(`deploy/kubernetes/${file}`));
      expect(
        documents.every((document) => document.errors.length === 0),
        file,
      ).toBe(true);
    }
    const service = parse(read('deploy/kubernetes/service.yaml')) as { spec: { ports: { targetPort: string }[] } };
    expect(service.spec.ports.map((port) => port.targetPort)).toEqual(['http']);
  });
});

describe('systemd unit', () => {
  const unit = read('deploy/systemd/practice-chat-relay.service');
  const value = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)?.[1];

  it('runs node directly, with a stop timeout that covers SHUTDOWN_GRACE_MS', () => {
    expect(value('ExecStart')).toBe('/usr/bin/node dist-server/server.js');
    expect(value('KillSignal')).toBe('SIGTERM');
    const grace = Number(/^Environment=SHUTDOWN_GRACE_MS=(\d+)$/m.exec(unit)?.[1]) / 1000;
    expect(Number(value('TimeoutStopSec'))).toBeGreaterThanOrEqual(grace + STOP_PAST_GRACE_SECONDS + 1);
    expect(value('NoNewPrivileges')).toBe('yes');
  });
});
