// `npm run simulator`: the upstream stand-in on its own port (default 8788, `--port N`, `--host H`).
import { parseArgs } from 'node:util';
import { startSimulatorServer } from './server.ts';

const DEFAULT_PORT = 8788;

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  const port = Number(raw);
  if (!/^[0-9]+$/.test(raw) || port > 65535) {
    console.error(`--port must be a whole number from 0 to 65535, not "${raw}".`);
    process.exit(2);
  }
  return port;
}

const { values } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string' } },
  strict: true,
});

const server = await startSimulatorServer({ port: parsePort(values.port), host: values.host ?? '127.0.0.1' });
const { seed } = server.simulator;
console.log(`Upstream simulator listening on ${server.url}`);
// The seeded account is a public demo account (it is in the README), not a real credential.
console.log(`Seeded account: ${seed.username} / ${seed.password} (granted practice ${seed.grantedPracticeId})`);
console.log('Webchat client ids: demo-client, smile-dental, demo-inactive, demo-other-practice, demo-empty-color, demo-analytics, demo-hostile');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
