// `npm run simulator`: the upstream stand-in on its own port, with fault knobs as flags (`--help` lists them), so
// anyone can try the widget against a failing upstream.
import { parseSimulatorArgs, SIMULATOR_USAGE } from './cli-options.ts';
import { startSimulatorServer } from './server.ts';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(SIMULATOR_USAGE);
  process.exit(0);
}
const parsed = parseSimulatorArgs(args);
if (!parsed.ok) {
  console.error(`${parsed.error}\n\n${SIMULATOR_USAGE}`);
  process.exit(2);
}
const { port, host, randomSeed, faults, events } = parsed.options;

const server = await startSimulatorServer({
  port,
  host,
  ...(randomSeed === undefined ? {} : { randomSeed }),
  ...(events === undefined ? {} : { events }),
});
server.simulator.faults.set(faults);
const { seed } = server.simulator;
console.log(`Upstream simulator listening on ${server.url}`);
// The seeded account is a public demo account (it is in docs/simulator.md), not a real credential.
console.log(
  `Seeded account: ${seed.username} / ${seed.password} (granted practices ${seed.grantedPracticeId}, ${seed.smileDentalPracticeId})`,
);
console.log(
  'Webchat client ids: demo-client, smile-dental, demo-inactive, demo-other-practice, demo-empty-color, demo-analytics, demo-hostile',
);
const active = Object.entries(faults).map(([name, value]) => `${name}=${String(value)}`);
if (active.length > 0) console.log(`Faults: ${active.join(', ')}`);
console.log(`Staff page (play the practice's team member): ${server.url}/staff`);
if (events !== undefined) console.log(`Upstream events: POST ${events.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
