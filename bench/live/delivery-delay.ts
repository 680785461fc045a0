// Part (a) of the live bench: how long a team member's message takes from the upstream storing it to a stream client
// receiving it, through a relay woken by the upstream's events and through one that only polls.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CountingUpstream } from './counting-upstream.ts';
import { percentile } from './percentile.ts';
import type { CreateConversation } from './relay-client.ts';
import type { Relay } from './relay-process.ts';
import type { Report } from './report.ts';
import { openStream } from './stream-client.ts';

interface DeliveryBench {
  upstream: CountingUpstream;
  createConversation: CreateConversation;
}

/** Writes `count` team-member messages to conversations watched through `relay`, and times each one's arrival. */
async function deliveryDelays(
  { upstream, createConversation }: DeliveryBench,
  relay: Relay,
  conversations: number,
  count: number,
  spreadMs: number,
): Promise<number[]> {
  const watched = await Promise.all(
    Array.from({ length: conversations }, async () => {
      const conversation = await createConversation(relay);
      const stream = openStream(relay, conversation.handle);
      await stream.opened;
      return { ...conversation, stream };
    }),
  );
  const delays: number[] = [];
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const target = watched[index % conversations]!;
      await sleep(Math.random() * spreadMs);
      const text = `team member reply ${index} ${randomBytes(4).toString('hex')}`;
      const arrived = new Promise<number>((resolve) =>
        target.stream.onMessage((message) => message.text === text && resolve(performance.now())),
      );
      const storedAt = performance.now();
      upstream.simulator.writeAs(target.id, 'agent', text);
      delays.push((await arrived) - storedAt);
    }),
  );
  watched.forEach((conversation) => {
    conversation.stream.close();
  });
  return delays;
}

export async function measureDeliveryDelay(
  report: Report,
  bench: DeliveryBench & { withEvents: Relay; pollingOnly: Relay; samples: number },
): Promise<void> {
  const { say } = report;
  say();
  say("## (a) From the upstream storing a team member's message to a stream client receiving it");
  say();
  say('| relay | samples | p50 ms | p99 ms | max ms |');
  say('| --- | ---: | ---: | ---: | ---: |');
  const eventDelays = await deliveryDelays(bench, bench.withEvents, 10, bench.samples, 20_000);
  say(
    `| with upstream events | ${eventDelays.length} | ${percentile(eventDelays, 50).toFixed(1)} | ${percentile(eventDelays, 99).toFixed(1)} | ${Math.max(...eventDelays).toFixed(1)} |`,
  );
  // Polling only, idle (nobody wrote for 30 s): the watch reads every 15 s ± 10 %, so the wait is spread over it.
  const pollDelays = await deliveryDelays(bench, bench.pollingOnly, 10, 20, 30_000);
  say(
    `| polling only, idle watch | ${pollDelays.length} | ${percentile(pollDelays, 50).toFixed(0)} | ${percentile(pollDelays, 99).toFixed(0)} | ${Math.max(...pollDelays).toFixed(0)} |`,
  );
  report.goal('with events p50 ≤ 100 ms', percentile(eventDelays, 50) <= 100);
  report.goal('with events p99 ≤ 500 ms', percentile(eventDelays, 99) <= 500);
}
