// Whether a practice's lost creates can be looked up by `client_reference` at all. The filter is assumed, and the
// service document says an endpoint may ignore a parameter it does not support: such a service answers a look-up with
// the practice's conversations. The proof (lost-create-proof.ts) already keeps the relay from adopting one of them;
// this check keeps it from asking (listing other patients' conversations for nothing) and tells the operator once.
//
// The check lists the practice's conversations with a fresh random reference that no conversation has: any result
// means the filter is ignored. A practice with no conversation yet cannot show that, so a look-up whose results lack
// its reference turns the practice's look-up off too. Verdicts are kept per practice in this process and checked
// again after `recheckAfterMs`: the service's behaviour changes only with its deployment, so an hour-old verdict is
// as good as a new one, while a service upgraded (or a practice's first conversations) is noticed within that time at
// the cost of one small list per practice. Not shared between instances: each checks for itself, which costs as
// little and needs no shared state.
import { randomUUID } from 'node:crypto';
import type { UpstreamClient } from '../upstream/index.ts';

export interface ReferenceLookUpCheckOptions {
  upstream: Pick<UpstreamClient, 'listConversations'>;
  now: () => number;
  /** How long a verdict holds; the next use after it checks again. */
  recheckAfterMs: number;
  /** The first time in this process that a practice's look-up is found unusable (told once, whichever practice). */
  onFirstUnusable?: () => void;
  /** The most practices whose verdict is kept; the oldest go first. */
  maxPractices?: number;
}

export interface ReferenceLookUpCheck {
  /**
   * Whether lost creates of `practice` may be looked up: the kept verdict, or a new check (one list) when there is
   * none or it is old. Throws when the check fails, so that nothing is decided on a guess.
   */
  usable(practice: string): Promise<boolean>;
  /** A look-up answered results without its reference: the practice's look-up is off until checked again. */
  markUnusable(practice: string): void;
  /** How many practices' look-ups are off now, for the metrics. */
  unusableCount(): number;
}

interface Verdict {
  usable: boolean;
  checkedAt: number;
}

export function createReferenceLookUpCheck({
  upstream,
  now,
  recheckAfterMs,
  onFirstUnusable,
  maxPractices = 10_000,
}: ReferenceLookUpCheckOptions): ReferenceLookUpCheck {
  const verdicts = new Map<string, Verdict>();
  const checking = new Map<string, Promise<boolean>>();
  let told = false;

  function keep(practice: string, usable: boolean): void {
    verdicts.delete(practice);
    verdicts.set(practice, { usable, checkedAt: now() });
    for (const oldest of verdicts.keys()) {
      if (verdicts.size <= maxPractices) break;
      verdicts.delete(oldest);
    }
    if (!usable && !told) {
      told = true;
      onFirstUnusable?.();
    }
  }

  async function check(practice: string): Promise<boolean> {
    const page = await upstream.listConversations({ practice, clientReference: randomUUID(), pageSize: 1 });
    const usable = page.results.length === 0;
    keep(practice, usable);
    return usable;
  }

  return {
    usable(practice) {
      const kept = verdicts.get(practice);
      if (kept !== undefined && now() - kept.checkedAt < recheckAfterMs) return Promise.resolve(kept.usable);
      // One check per practice at a time, however many creates ask meanwhile.
      const running = checking.get(practice);
      if (running !== undefined) return running;
      const started = check(practice).finally(() => checking.delete(practice));
      checking.set(practice, started);
      return started;
    },
    markUnusable(practice) {
      keep(practice, false);
    },
    unusableCount() {
      let count = 0;
      for (const verdict of verdicts.values()) if (!verdict.usable) count++;
      return count;
    },
  };
}
