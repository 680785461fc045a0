// The check of whether a practice's lost creates can be looked up by `client_reference`: a list with a fresh random
// reference that no conversation has answers nothing from a service that applies the filter, and the practice's
// conversations from one that ignores it. Verdicts are kept per practice for a while, one check runs at a time, a
// failed check decides nothing, and the operator is told once.
import { describe, expect, it } from 'vitest';
import { createReferenceLookUpCheck } from '../../../src/relay/conversations/reference-lookup-check.ts';

const HOUR = 60 * 60 * 1000;

function service(conversationsOf: Record<string, number>) {
  const state = { ignoresFilter: false, failing: false };
  const asked: { practice?: string; clientReference?: string; pageSize?: number }[] = [];
  return {
    state,
    asked,
    upstream: {
      listConversations: async (query: { practice?: string; clientReference?: string; pageSize?: number } = {}) => {
        asked.push(query);
        if (state.failing) throw new Error('unreachable');
        const count = state.ignoresFilter ? (conversationsOf[query.practice ?? ''] ?? 0) : 0;
        const results = Array.from({ length: Math.min(count, query.pageSize ?? 50) }, (_, index) => ({
          id: `c${index}`,
        }));
        return { results } as never;
      },
    },
  };
}

describe('the look-up check', () => {
  function setup(conversationsOf: Record<string, number> = { p1: 3, p2: 1, empty: 0 }) {
    let clock = 0;
    const upstream = service(conversationsOf);
    let told = 0;
    const check = createReferenceLookUpCheck({
      upstream: upstream.upstream,
      now: () => clock,
      recheckAfterMs: HOUR,
      onFirstUnusable: () => told++,
    });
    return {
      upstream,
      check,
      told: () => told,
      advance: (ms: number) => {
        clock += ms;
      },
    };
  }

  it('asks with a fresh random reference, one result at most', async () => {
    const { upstream, check } = setup();
    await check.usable('p1');
    await check.usable('p2');
    const [first, second] = upstream.asked;
    expect(first).toMatchObject({ practice: 'p1', pageSize: 1 });
    expect(first?.clientReference).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.clientReference).not.toBe(first?.clientReference);
  });

  it('an applied filter: look-ups on, nothing told', async () => {
    const { check, told } = setup();
    expect(await check.usable('p1')).toBe(true);
    expect(check.unusableCount()).toBe(0);
    expect(told()).toBe(0);
  });

  it('an ignored filter: look-ups off for each practice that shows it, told once, counted per practice', async () => {
    const { upstream, check, told } = setup();
    upstream.state.ignoresFilter = true;
    expect(await check.usable('p1')).toBe(false);
    expect(await check.usable('p2')).toBe(false);
    expect(await check.usable('p1')).toBe(false);
    expect(told()).toBe(1);
    expect(check.unusableCount()).toBe(2);
    // A practice with no conversation yet cannot show it; its first look-up that does turns it off.
    expect(await check.usable('empty')).toBe(true);
    check.markUnusable('empty');
    expect(await check.usable('empty')).toBe(false);
    expect(check.unusableCount()).toBe(3);
    expect(told()).toBe(1);
  });

  it('keeps a verdict for an hour, checks again after it; one check at a time however many ask', async () => {
    const { upstream, check, advance } = setup();
    const answers = await Promise.all([check.usable('p1'), check.usable('p1'), check.usable('p1')]);
    expect(answers).toEqual([true, true, true]);
    expect(upstream.asked).toHaveLength(1);
    advance(HOUR - 1);
    await check.usable('p1');
    expect(upstream.asked).toHaveLength(1);
    // The service was redeployed without the filter: seen at the next check.
    upstream.state.ignoresFilter = true;
    advance(1);
    expect(await check.usable('p1')).toBe(false);
    expect(upstream.asked).toHaveLength(2);
  });

  it('a check that fails decides nothing: it throws, and the next use checks again', async () => {
    const { upstream, check } = setup();
    upstream.state.failing = true;
    await expect(check.usable('p1')).rejects.toThrow();
    upstream.state.failing = false;
    expect(await check.usable('p1')).toBe(true);
    expect(upstream.asked).toHaveLength(2);
  });
});
