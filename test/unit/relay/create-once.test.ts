// A create whose answer was lost is found again by its reference, but only by the visitor who made it and only while
// its key still answers: another visitor presenting the same Idempotency-Key, or the maker long after, must get a
// conversation of their own, never the one the first create made.
import { describe, expect, it } from 'vitest';
import { createCreateOnce } from '../../../src/relay/conversations/create-once.ts';
import { createScope } from '../../../src/relay/conversations/created-record.ts';
import { createUnknownOutcomeStore } from '../../../src/relay/conversations/unknown-outcomes.ts';

const KEY = '0f8fad5b-d9cb-469f-a165-70867728950e';
const FIND_WINDOW_MS = 15 * 60 * 1000;

/** An upstream that stores every create and, while `loseAnswers` is set, answers neither the create nor a look-up. */
function lossyUpstream() {
  const stored: { id: string; reference: string | undefined }[] = [];
  const state = { loseAnswers: false };
  const lost = () => Object.assign(new Error('connection reset after the work'), { name: 'Error' });
  return {
    stored,
    state,
    upstream: {
      createConversation: async ({ clientReference }: { practice: string; clientReference?: string }) => {
        const conversation = { id: `c${stored.length + 1}`, reference: clientReference };
        stored.push(conversation);
        if (state.loseAnswers) throw lost();
        return { id: conversation.id } as never;
      },
      listConversations: async ({ clientReference }: { clientReference?: string } = {}) => {
        if (state.loseAnswers) throw lost();
        return {
          results: stored
            .filter((conversation) => conversation.reference === clientReference)
            .map(({ id }) => ({ id })),
        } as never;
      },
    },
  };
}

describe('createOnce', () => {
  const victim = createScope('smile-dental', '203.0.113.7');
  const attacker = createScope('smile-dental', '198.51.100.9');

  function setup() {
    let clock = 1_000_000;
    const service = lossyUpstream();
    const createOnce = createCreateOnce({
      upstream: service.upstream,
      outcomes: createUnknownOutcomeStore({ now: () => clock }),
      now: () => clock,
      findWindowMs: FIND_WINDOW_MS,
    });
    return {
      service,
      createOnce,
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
    await expect(context.createOnce({ practice: 'p1', requester: victim, key: KEY })).resolves.toEqual({ id: 'c1' });
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
});
