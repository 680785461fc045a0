// Part (c) of the live bench: upstream reads per watched conversation per minute, the panel's polling as it was
// against streams through each relay, in every state of the panel at once.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CountingUpstream } from './counting-upstream.ts';
import { PER_STATE, panelStates, type StateRun } from './panel-states.ts';
import type { CreateConversation } from './relay-client.ts';
import type { Relay } from './relay-process.ts';
import type { Report } from './report.ts';

export async function measureUpstreamReads(
  report: Report,
  bench: {
    upstream: CountingUpstream;
    createConversation: CreateConversation;
    withEvents: Relay;
    pollingOnly: Relay;
    readsSeconds: number;
  },
): Promise<void> {
  const { upstream, withEvents, pollingOnly, readsSeconds } = bench;
  const { say } = report;
  say();
  say(
    `## (c) Upstream reads per watched conversation per minute (${PER_STATE} conversations per state, ${readsSeconds} s; ${readsSeconds < 60 ? 'scaled to a minute' : 'a minute'})`,
  );
  say();
  say(
    "The panel's polling as it was (1 s just after writing, 5 s open, 15 s closed) against one stream per tab, with and",
  );
  say(
    "without upstream events. A read is a GET of the conversation's messages or of its status, counted at the upstream.",
  );
  say();
  say('| state | polling (before) | stream, polling only | stream, with events |');
  say('| --- | ---: | ---: | ---: |');
  const windowSeconds = (state: StateRun) => (state.state.startsWith('the first 30 s') ? 30 : readsSeconds);
  // Every read of these conversations counts, from their creation (which reads nothing) on: the panel's first poll and
  // the stream's catch-up read alike.
  const perMinute = (ids: string[], seconds: number) =>
    ids.reduce((sum, id) => sum + (upstream.readsOf.get(id) ?? 0), 0) / ids.length / (seconds / 60);
  const readResults = await Promise.all(
    panelStates(bench.createConversation).map(async (state) => {
      const seconds = windowSeconds(state);
      const until = performance.now() + seconds * 1000;
      const [polled, streamedPolling, streamedEvents] = await Promise.all([
        state.polling(pollingOnly, until),
        state.streaming(pollingOnly, until),
        state.streaming(withEvents, until),
      ]);
      await sleep(Math.max(0, until - performance.now()));
      // Counted at once, before the streams (still open) read again.
      return {
        state: state.state,
        polling: perMinute(polled, seconds),
        streamPolling: perMinute(streamedPolling, seconds),
        streamEvents: perMinute(streamedEvents, seconds),
      };
    }),
  );
  for (const row of readResults) {
    say(
      `| ${row.state} | ${row.polling.toFixed(1)} | ${row.streamPolling.toFixed(1)} | ${row.streamEvents.toFixed(1)} |`,
    );
    report.goal(`reads ≤ polling: ${row.state}`, row.streamPolling <= row.polling && row.streamEvents <= row.polling);
  }
}
