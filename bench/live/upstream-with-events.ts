// The counting simulator, told to send its events to a relay on a port chosen here (so chosen before either starts),
// and the relay processes that will call it. Start the relay with events on `eventsPort`, with
// `UPSTREAM_EVENTS_SECRET: eventsSecret`.
import { randomBytes } from 'node:crypto';
import { freePort } from '../../tools/free-port.ts';
import { startCountingUpstream } from './counting-upstream.ts';
import { relayProcesses } from './relay-process.ts';

export async function startUpstreamWithEvents(profileDir: string | undefined) {
  const eventsSecret = randomBytes(32).toString('base64');
  const eventsPort = await freePort();
  const upstream = await startCountingUpstream({
    url: `http://127.0.0.1:${eventsPort}/v1/upstream-events`,
    secret: eventsSecret,
  });
  const relays = relayProcesses({
    upstream: {
      url: upstream.url,
      username: upstream.simulator.seed.username,
      password: upstream.simulator.seed.password,
    },
    profileDir,
  });
  return { upstream, relays, eventsPort, eventsSecret };
}
