// The duplicate hole: upstream stores a message and its answer is lost. The visitor's retry (same Idempotency-Key)
// must not store it twice; the relay reads the conversation back first.
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayHarness } from '../relay/relay-harness.ts';
import { MESSAGES } from '../../support/conversation-calls.ts';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

// The relay's clock, moved past the settle window (SEND_SETTLE_MS, 15 s by default) when a test says so.
let later = 0;
const relayClock = () => Date.now() + later;
const settleWindowPasses = () => (later += 15_000);
afterEach(() => (later = 0));

const visitorTexts = () =>
  [...harness.simulator.store.messages.values()]
    .flat()
    .filter((message) => message.sender === 'visitor')
    .map((message) => message.text);

async function send(handle: string, key: string, text: string) {
  return harness.fromPanel(handle, MESSAGES, { body: { text }, headers: { 'Idempotency-Key': key } });
}

describe('a message whose answer was lost', () => {
  it('after upstream stored it: the retry answers the stored message and sends nothing again', async () => {
    harness = createRelayHarness({ now: relayClock });
    const handle = await harness.startConversation();
    harness.simulator.faults.set({ dropAfterHandlingRate: 1, match: /messages\/$/ });
    const lost = await send(handle, 'key-lost-after-1', 'My tooth hurts');
    expect(lost.status).toBe(503);
    expect(visitorTexts()).toEqual(['My tooth hurts']);
    harness.simulator.faults.reset();
    // Found stored, it is settled: the retry is answered at once, without waiting out the settle window.
    const retry = await send(handle, 'key-lost-after-1', 'My tooth hurts');
    expect(retry.status).toBe(201);
    const stored = [...harness.simulator.store.messages.values()]
      .flat()
      .find((message) => message.sender === 'visitor')!;
    expect(((await retry.json()) as { message: { id: string } }).message.id).toBe(stored.id);
    expect(visitorTexts()).toEqual(['My tooth hurts']);
  });

  it('before upstream handled it: the retry really sends, once', async () => {
    harness = createRelayHarness({ now: relayClock });
    const handle = await harness.startConversation();
    harness.simulator.faults.set({ dropRate: 1, match: /messages\/$/ });
    expect((await send(handle, 'key-lost-before', 'Can I come at 3?')).status).toBe(503);
    expect(visitorTexts()).toEqual([]);
    harness.simulator.faults.reset();
    expect((await send(handle, 'key-lost-before', 'Can I come at 3?')).status).toBe(504);
    expect(visitorTexts()).toEqual([]);
    settleWindowPasses();
    expect((await send(handle, 'key-lost-before', 'Can I come at 3?')).status).toBe(201);
    expect(visitorTexts()).toEqual(['Can I come at 3?']);
  });

  it('an identical earlier message under another key is not taken for the lost one', async () => {
    harness = createRelayHarness({ now: relayClock });
    const handle = await harness.startConversation();
    expect((await send(handle, 'key-first-yes', 'yes')).status).toBe(201);
    harness.simulator.faults.set({ dropRate: 1, match: /messages\/$/ });
    expect((await send(handle, 'key-second-yes', 'yes')).status).toBe(503);
    harness.simulator.faults.reset();
    settleWindowPasses();
    expect((await send(handle, 'key-second-yes', 'yes')).status).toBe(201);
    expect(visitorTexts()).toEqual(['yes', 'yes']);
  });

  it('a read-back that fails sends nothing blind; the next retry still finds the stored message', async () => {
    harness = createRelayHarness({ now: relayClock });
    const handle = await harness.startConversation();
    harness.simulator.faults.set({ dropAfterHandlingRate: 1, match: /messages\/$/ });
    expect((await send(handle, 'key-readback-fails', 'Is parking free?')).status).toBe(503);
    // Now every call to the messages path fails: the read-back (a GET) cannot tell, so nothing is sent.
    harness.simulator.faults.set({ errorRate: 1, match: /messages\/$/ });
    settleWindowPasses();
    expect((await send(handle, 'key-readback-fails', 'Is parking free?')).status).toBe(503);
    harness.simulator.faults.reset();
    expect((await send(handle, 'key-readback-fails', 'Is parking free?')).status).toBe(201);
    expect(visitorTexts()).toEqual(['Is parking free?']);
  });

  it('keeps a hash, never the text, and logs no text', async () => {
    harness = createRelayHarness({ now: relayClock });
    const handle = await harness.startConversation();
    harness.simulator.faults.set({ dropAfterHandlingRate: 1, match: /messages\/$/ });
    await send(handle, 'key-no-text-kept', 'CANARY-LOST-ANSWER-TEXT');
    harness.simulator.faults.reset();
    settleWindowPasses();
    await send(handle, 'key-no-text-kept', 'CANARY-LOST-ANSWER-TEXT');
    expect(harness.logLines.join('\n')).not.toContain('CANARY-LOST-ANSWER-TEXT');
  });
});
