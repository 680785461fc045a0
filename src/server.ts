// `npm start`. Until the relay exists (issue 3) it starts the upstream simulator on PORT (default 8787), so a new
// user can try the service side at once.
import { startSimulatorServer } from './simulator/server.ts';

const DEFAULT_PORT = 8787;

function portFromEnvironment(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be a whole number from 0 to 65535, not "${raw}".`);
    process.exit(1);
  }
  return port;
}

const server = await startSimulatorServer({ port: portFromEnvironment(process.env.PORT) });
console.log(`Upstream simulator listening on ${server.url}`);
console.log(`Seeded account: ${server.simulator.seed.username} (password in README)`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => process.exit(0)));
}
