// A relay instance in its own process (`src/server.ts`, as `npm start` runs it), for tests of several instances
// behind one address: what one process remembers in memory, another does not.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface RelayProcess {
  url: string;
  process: ChildProcess;
  /** Everything it printed, for a failing test's message. */
  output: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Node's arguments that start `npm start`'s relay (src/server.ts): as the unit project's global setup compiled it
 * (test/support/built-relay.ts), or under tsx where no such setup ran.
 */
export function relayServerArguments(): string[] {
  const compiled = inject('relayServerJs');
  return compiled === undefined ? ['--import', 'tsx', 'src/server.ts'] : [compiled];
}

export async function startRelayProcess(environment: Record<string, string>): Promise<RelayProcess> {
  const child = spawn(process.execPath, relayServerArguments(), {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`relay did not start within 20 s:\n${output}`)), 20_000);
    const look = () => {
      const match = /Relay listening on (http:\/\/[^\s"]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', look);
    void exited.then((code) => reject(new Error(`relay exited with ${code} before listening:\n${output}`)));
  });
  return {
    url,
    process: child,
    output: () => output,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
