// A create whose answer was lost is found again by its reference, but only by the visitor who made it, only while its
// key still answers, and only on proof that what was found is this create's: the service echoes the very reference,
// only one conversation carries it (and every result does), and it was created after the attempt began. Anything
// else is refused as unconfirmed (never adopted, never created blind).
import { describe, expect, it } from 'vitest';
import { CreateUnconfirmed, createCreateOnce } from '../../../src/relay/conversations/create-once.ts';
import { createScope } from '../../../src/relay/conversations/created-record.ts';
import { createReferenceLookUpCheck } from '../../../src/relay/conversations/reference-lookup-check.ts';
import { createUnknownOutcomeStore } from '../../../src/relay/conversations/unknown-outcomes.ts';
import { UpstreamError } from '../../../src/relay/upstream/index.ts';

const KEY = '0f8fad5b-d9cb-469f-a165-70867728950e';
const FIND_WINDOW_MS = 15 * 60 * 1000;
const MINUTE = 60 * 1000;

interface StoredConversation {
  id: string;
  reference: string | undefined;
  createdAt: number;
}

/**
 * An upstream that stores every create. While `loseAnswers` is set it answers neither the create nor a look-up;
 * `lostBeforeStoring` loses the create before it is stored; `storeTwice` stores each create twice (the service
 * retried on its own); `ignoresFilter` answers the list unfiltered; `clockOffsetMs` is how far the service's clock is
 * from the relay's.
 */
function lossyUpstream(relayClock: () => number) {
  const stored: StoredConversation[] = [];
  const state = {
    loseAnswers: false,
    lostBeforeStoring: false,
    storeTwice: false,
    ignoresFilter: false,
    refuseCreates: false,
    clockOffsetMs: 0,
  };
  const lists: { clientReference?: string }[] = [];
  const lost = () => Object.assign(new Error('connection reset after the work'), { name: 'Error' });
  const store = (reference: string | undefined) => {
    const conversation = { id: `c${stored.length + 1}`, reference, createdAt: relayClock() + state.clockOffsetMs };
    stored.push(conversation);
    return conversation;
  };
  return {
    stored,
    state,
    lists,
    /** Another visitor's conversation, with a reference of its own, created now. */
    someoneElses: () => store('another-visitors-reference'),
    upstream: {
      createConversation: async ({ clientReference }: { practice: string; clientReference?: string }) => {
        if (state.refuseCreates) throw new UpstreamError('upstream_rate_limited', { path: '/api/conversations/' });
        if (state.loseAnswers && state.lostBeforeStoring) throw lost();
        const conversation = store(clientReference);
        if (state.storeTwice) store(clientReference);
        if (state.loseAnswers) throw lost();
        return { id: conversation.id } as never;
      },
      listConversations: async (query: { clientReference?: string; pageSize?: number } = {}) => {
        lists.push(query);
        if (state.loseAnswers) throw lost();
        const results = stored
          .filter(({ reference }) => state.ignoresFilter || reference === query.clientReference)
          .slice(0, query.pageSize ?? 50)
          .map(({ id, reference, createdAt }) => ({
            id,
            created_at: new Date(createdAt).toISOString(),
            ...(reference === undefined ? {} : { client_reference: reference }),
          }));
        return { results } as never;
      },
    },
  };
}

describe('createOnce', () => {
  const victim = createScope('smile-dental', '203.0.113.7');
  const attacker = createScope('smile-dental', '198.51.100.9');

  function setup() {
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const service = lossyUpstream(now);
    const unconfirmed: string[] = [];
    const leftEmpty: number[] = [];
    const createOnce = createCreateOnce({
      upstream: service.upstream,
      outcomes: createUnknownOutcomeStore({ now }),
      lookUpCheck: createReferenceLookUpCheck({ upstream: service.upstream, now, recheckAfterMs: 60 * MINUTE }),
      now,
      findWindowMs: FIND_WINDOW_MS,
      onUnconfirmed: (reason) => unconfirmed.push(reason),
      onLeftEmpty: (count) => leftEmpty.push(count),
    });
    return {
      service,
      createOnce,
      unconfirmed,
      leftEmpty,
      advance: (ms: number) => {
        clock += ms;
      },
    };
  }

  async function loseFirstCreate({ service, createOnce }: ReturnType<typeof setup>) {
    service.state.loseAnswers = true;
    await expect(createOnce({ practice: 'p1', requester: victim, key: KEY })).rejects.toThrow();
    service.state.loseAnswers = false;
    expect(service.stored).toHaveLength(1);
  }

  it("finds the maker's lost create again on the maker's retry", async () => {
    const context = setup();
    await loseFirstCreate(context);
    await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).resolves.toMatchObject({
      id: 'c1',
    });
    expect(context.service.stored).toHaveLength(1);
  });

  it('charges a key its first create only: the retries that look for a lost create are never refused by a quota', async () => {
    const context = setup();
    const charged: string[] = [];
    // One conversation's worth of quota: a second charge is refused, as the relay's quota refuses it.
    const beforeFirstCreate = async () => {
      charged.push('create');
      if (charged.length > 1) throw new Error('over the quota');
    };
    const request = { practice: 'p1', requester: victim, key: KEY, beforeFirstCreate };
    context.service.state.loseAnswers = true;
    await expect(context.createOnce(request)).rejects.toThrow();
    // Its look-up lost too: the retry looks again, uncharged.
    await expect(context.createOnce(request)).rejects.toThrow();
    context.service.state.loseAnswers = false;
    await expect(context.createOnce(request)).resolves.toMatchObject({ id: 'c1' });
    expect(charged).toEqual(['create']);
    expect(context.service.stored).toHaveLength(1);
    // Another key, and a create without one, are new conversations: charged.
    await expect(context.createOnce({ ...request, key: undefined })).rejects.toThrow('over the quota');
    expect(context.service.stored).toHaveLength(1);
  });

  it("never hands another visitor presenting the same key the maker's conversation", async () => {
    const context = setup();
    await loseFirstCreate(context);
    const theirs = await context.createOnce({ practice: 'p1', requester: attacker, key: KEY });
    expect(theirs.id).not.toBe('c1');
    expect(context.service.stored).toHaveLength(2);
  });

  it('finds nothing once the key no longer answers (after its record would have expired)', async () => {
    const context = setup();
    await loseFirstCreate(context);
    context.advance(FIND_WINDOW_MS + 1);
    const later = await context.createOnce({ practice: 'p1', requester: victim, key: KEY });
    expect(later.id).not.toBe('c1');
  });

  it('adopts the lost create found right after it, with and without a key, when the answer proves it', async () => {
    const context = setup();
    context.service.someoneElses();
    context.service.state.loseAnswers = false;
    // The create is stored and its answer lost; the look-up that follows is answered.
    const createThenLose = context.service.upstream.createConversation;
    context.service.upstream.createConversation = async (input) => {
      await createThenLose(input);
      throw new Error('the answer was lost');
    };
    await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).resolves.toMatchObject({
      id: 'c2',
    });
    await expect(context.createOnce({ practice: 'p1', requester: victim, key: undefined })).resolves.toMatchObject({
      id: 'c3',
    });
    expect(context.unconfirmed).toEqual([]);
  });

  describe('refuses what the answer does not prove, and never adopts it', () => {
    it("a result that does not echo this create's reference (the service ignored the filter)", async () => {
      const context = setup();
      context.service.state.ignoresFilter = true;
      // Another visitor opens the practice's first conversation: the probe beside it had nothing to show, so
      // look-ups stay on.
      const theirs = await context.createOnce({ practice: 'p1', requester: attacker, key: undefined });
      context.service.state.loseAnswers = true;
      context.service.state.lostBeforeStoring = true;
      await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).rejects.toThrow();
      context.service.state.loseAnswers = false;
      const retry = context.createOnce({ practice: 'p1', requester: victim, key: KEY });
      await expect(retry).rejects.toBeInstanceOf(CreateUnconfirmed);
      await expect(retry).rejects.toMatchObject({ reason: 'reference_not_echoed' });
      // Nothing was created blind either, and the practice's look-ups are off from now on.
      expect(context.service.stored.map(({ id }) => id)).toEqual([theirs.id]);
      await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).rejects.toMatchObject({
        reason: 'lookup_off',
      });
      expect(context.unconfirmed).toEqual(['reference_not_echoed', 'lookup_off']);
    });

    it('two conversations with the reference: neither is adopted, both are counted as left empty', async () => {
      const context = setup();
      context.service.state.loseAnswers = true;
      context.service.state.storeTwice = true;
      await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).rejects.toThrow();
      context.service.state.loseAnswers = false;
      const retry = context.createOnce({ practice: 'p1', requester: victim, key: KEY });
      await expect(retry).rejects.toMatchObject({ reason: 'several_found' });
      expect(context.service.stored).toHaveLength(2);
      // Counted only by the look-up right after the create that made them (which was lost here), never by a retry.
      expect(context.leftEmpty).toEqual([]);
    });

    it('two conversations found right after the create: refused and counted once', async () => {
      const context = setup();
      context.service.state.storeTwice = true;
      const createThenLose = context.service.upstream.createConversation;
      context.service.upstream.createConversation = async (input) => {
        await createThenLose(input);
        throw new Error('the answer was lost');
      };
      const first = context.createOnce({ practice: 'p1', requester: victim, key: KEY });
      await expect(first).rejects.toMatchObject({ reason: 'several_found' });
      expect(context.leftEmpty).toEqual([2]);
      await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).rejects.toMatchObject({
        reason: 'several_found',
      });
      expect(context.leftEmpty).toEqual([2]);
      expect(context.service.stored).toHaveLength(2);
    });

    it('created before the attempt began: a service clock a minute behind is refused, five seconds behind is not', async () => {
      const context = setup();
      context.service.state.clockOffsetMs = -MINUTE;
      await loseFirstCreate(context);
      const retry = context.createOnce({ practice: 'p1', requester: victim, key: KEY });
      await expect(retry).rejects.toMatchObject({ reason: 'not_after_attempt' });
      expect(context.service.stored).toHaveLength(1);

      const skewed = setup();
      skewed.service.state.clockOffsetMs = -5_000;
      await loseFirstCreate(skewed);
      await expect(skewed.createOnce({ practice: 'p1', requester: victim, key: KEY })).resolves.toMatchObject({
        id: 'c1',
      });
    });

    it("a retry measures from the earlier attempt's start, not from now", async () => {
      const context = setup();
      await loseFirstCreate(context);
      context.advance(10 * MINUTE);
      // Created at the first attempt, ten minutes before this retry: still after the attempt began.
      await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).resolves.toMatchObject({
        id: 'c1',
      });
    });

    it('the unconfirmed answer says when a retry with the key can be decided: when its window is over', async () => {
      const context = setup();
      context.service.state.storeTwice = true;
      context.service.state.loseAnswers = true;
      await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).rejects.toThrow();
      context.service.state.loseAnswers = false;
      context.advance(5 * MINUTE);
      const retry = context.createOnce({ practice: 'p1', requester: victim, key: KEY });
      await expect(retry).rejects.toMatchObject({ retryAfterMs: FIND_WINDOW_MS - 5 * MINUTE });
      // Once the window is over, the retry is a create of its own.
      context.advance(FIND_WINDOW_MS);
      await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).resolves.toMatchObject({
        id: 'c3',
      });
    });
  });

  describe('where the service ignores the filter', () => {
    it('a lost create is not looked up: refused as unconfirmed, nothing adopted or made again', async () => {
      const context = setup();
      context.service.someoneElses();
      context.service.state.ignoresFilter = true;
      const createThenLose = context.service.upstream.createConversation;
      context.service.upstream.createConversation = async (input) => {
        await createThenLose(input);
        throw new Error('the answer was lost');
      };
      for (const key of [KEY, undefined]) {
        const lost = context.createOnce({ practice: 'p1', requester: victim, key });
        await expect(lost).rejects.toMatchObject({ reason: 'lookup_off' });
      }
      await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).rejects.toMatchObject({
        reason: 'lookup_off',
      });
      // Only the probe listed: no look-up went out.
      expect(context.service.lists).toHaveLength(1);
      expect(context.service.stored).toHaveLength(3);
    });

    it('a create the service refused (429) holds no retry up: nothing of it can have landed', async () => {
      const context = setup();
      context.service.someoneElses();
      context.service.state.ignoresFilter = true;
      context.service.state.refuseCreates = true;
      await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).rejects.toBeInstanceOf(
        UpstreamError,
      );
      context.service.state.refuseCreates = false;
      await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).resolves.toMatchObject({
        id: 'c2',
      });
    });
  });
});
