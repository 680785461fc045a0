import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';

async function token(url: string, username: string, password: string): Promise<string> {
  const response = await fetch(`${url}/api/oauth/token/`, {
    method: 'POST',
    body: new URLSearchParams({ username, password }),
  });
  return (await response.json()).access_token;
}

describe('startSimulatorServer', () => {
  it('serves the simulator on a free loopback port', async () => {
    const server = await startSimulatorServer({ port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const { username, password } = server.simulator.seed;
      const access = await token(server.url, username, password);
      const config = await fetch(
        `${server.url}/api/conversations/webchat-configuration/?client_id=demo-client&format=json`,
        {
          headers: { Authorization: `Bearer ${access}` },
        },
      );
      const { logo_signed_url } = await config.json();
      expect(logo_signed_url.startsWith(`${server.url}/media/logo.svg?`)).toBe(true);
      const logo = await fetch(logo_signed_url);
      expect(logo.status).toBe(200);
      expect(logo.headers.get('content-type')).toBe('image/svg+xml');
    } finally {
      await server.close();
    }
  });

  it('drops the connection for dropRate 1: fetch rejects, and the server keeps serving', async () => {
    const server = await startSimulatorServer({ port: 0 });
    try {
      const { username, password } = server.simulator.seed;
      const access = await token(server.url, username, password);
      server.simulator.faults.set({ dropRate: 1 });
      await expect(
        fetch(`${server.url}/api/calls/`, { headers: { Authorization: `Bearer ${access}` } }),
      ).rejects.toThrow(TypeError);
      server.simulator.faults.reset();
      expect((await fetch(`${server.url}/api/calls/`, { headers: { Authorization: `Bearer ${access}` } })).status).toBe(
        200,
      );
    } finally {
      await server.close();
    }
  });

  it('gives independent simulators to independent servers', async () => {
    const [a, b] = await Promise.all([startSimulatorServer({ port: 0 }), startSimulatorServer({ port: 0 })]);
    try {
      expect(a.url).not.toBe(b.url);
      a.simulator.faults.set({ errorRate: 1 });
      expect(b.simulator.faults.current()).toEqual({});
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('rejects when the port is taken', async () => {
    const first = await startSimulatorServer({ port: 0 });
    try {
      const port = Number(new URL(first.url).port);
      await expect(startSimulatorServer({ port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});

describe('npm run simulator (main.ts)', () => {
  it('prints its URL and the seeded account, serves, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/simulator/main.ts', '--port', '0'], {
      cwd: new URL('../../../', import.meta.url),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          if (output.includes('Seeded account')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
      });
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      expect(url).toBeDefined();
      expect(output).toContain('demo@practice.example');
      const access = await token(url ?? '', 'demo@practice.example', 'demo-password');
      expect((await fetch(`${url}/api/calls/`, { headers: { Authorization: `Bearer ${access}` } })).status).toBe(200);
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 20_000);
});
