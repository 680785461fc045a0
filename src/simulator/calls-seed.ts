import { createRandom } from './random.ts';

/** The assumed call record (docs/upstream-contract.md). */
export interface CallRecord {
  id: string;
  practice: string;
  organization: string;
  direction: 'inbound' | 'outbound';
  status: 'answered' | 'missed' | 'voicemail';
  started_at: string;
  duration_seconds: number;
  is_opportunity: boolean;
}

export const CALL_STATUSES = ['answered', 'missed', 'voicemail'] as const;

// A fixed origin and seed: the same calls on every run, so tests can count on them.
const LATEST_CALL = Date.UTC(2025, 5, 30, 17, 0, 0);
const CALLS_SEED = 20250630;

export function generateCalls(
  organization: string,
  perPractice: ReadonlyArray<[practice: string, count: number]>,
): CallRecord[] {
  const random = createRandom(CALLS_SEED);
  const ids = new Set<string>();
  const calls: CallRecord[] = [];
  for (const [practice, count] of perPractice) {
    let at = LATEST_CALL;
    for (let i = 0; i < count; i++) {
      let id: string;
      do
        id =
          'cal_' +
          Math.floor(random() * 0xffffffff)
            .toString(16)
            .padStart(8, '0');
      while (ids.has(id));
      ids.add(id);
      const roll = random();
      const status = roll < 0.7 ? 'answered' : roll < 0.88 ? 'missed' : 'voicemail';
      calls.push({
        id,
        practice,
        organization,
        direction: random() < 0.8 ? 'inbound' : 'outbound',
        status,
        started_at: new Date(at).toISOString(),
        duration_seconds: status === 'missed' ? 0 : 20 + Math.floor(random() * 600),
        is_opportunity: status !== 'answered' && random() < 0.6,
      });
      // Whole minutes between 1 and 9 hours apart, so no two calls of a practice share a start time.
      at -= (60 + Math.floor(random() * 480)) * 60_000;
    }
  }
  return calls;
}
