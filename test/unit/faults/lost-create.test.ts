// A create whose answer is lost after the service stored it must not leave an empty conversation with the practice:
// staff would see a chat with nothing in it. Half of the service's answers on conversations fail after the work is
// done (the connection drops once the service has handled the request, or the service answers 500 once it has stored
// it); 20 visitors, driven through the panel's own model, start a chat and write once; any message the panel gives up
// on is retried by the visitor ("Try again") once the faults stop. Every conversation upstream must then hold its
// visitor's message, once.
import { afterEach, expect, it } from 'vitest';
import { FIXTURE_DIST, startProduct } from '../../support/product.ts';
import { createPanelVisitor, type PanelVisitor } from '../../support/panel-visitor.ts';
import { SIMULATOR_SETTLE_WINDOWS } from '../../support/simulator-settle-windows.ts';

const VISITORS = 20;
const SETTINGS = {
  REQUESTS_PER_MINUTE_PER_IP: '1000000',
  // All visitors come from one address, whose quota is exactly one conversation each (the default is 20): a retry
  // charged again would leave some visitor refused, with the conversation its lost first try made empty upstream.
  CONVERSATIONS_PER_HOUR_PER_IP: String(VISITORS),
  MESSAGES_PER_MINUTE_PER_CONVERSATION: '1000000',
  HANDLE_SECRET: 'lC7q2Lw9Xk4Rb1Zt8Nc3Vy6Hm0Pj5Gd+Ue2Aa9Ko4Ti=',
  // Most of this file's time was the default settle windows.
  ...SIMULATOR_SETTLE_WINDOWS,
};

let product: Awaited<ReturnType<typeof startProduct>> | undefined;
let visitors: PanelVisitor[] = [];
afterEach(async () => {
  visitors.forEach((visitor) => {
    visitor.dispose();
  });
  visitors = [];
  await product?.close();
  product = undefined;
});

const LOST_AFTER_THE_WORK = [
  { fault: 'dropped after the work', settings: { dropAfterHandlingRate: 0.5 } },
  { fault: 'answered 500 after the work', settings: { errorAfterHandlingRate: 0.5 } },
] as const;

it.each(LOST_AFTER_THE_WORK)(
  `half of the service's answers $fault: ${VISITORS} visitors create and write once, no conversation left empty`,
  async ({ fault, settings }) => {
    product = await startProduct({ distDir: FIXTURE_DIST, environment: SETTINGS, simulator: { randomSeed: 27 } });
    product.simulator.faults.set({ ...settings, match: /^\/api\/conversations\// });
    const texts = Array.from({ length: VISITORS }, (_, index) => `visitor ${index} asks about a cleaning`);
    visitors = texts.map(() => createPanelVisitor(product!.relayUrl));
    visitors.forEach((visitor, index) => {
      visitor.send(texts[index]!);
    });
    // The panel's own retries, under the faults, until each message is sent or shown as not sent.
    const settled = Date.now() + 150_000;
    const pending = () =>
      visitors.filter((visitor) =>
        visitor.delivery().some((message) => message.delivery !== 'sent' && message.delivery !== 'failed'),
      );
    while (pending().length > 0 && Date.now() < settled) await new Promise((resolve) => setTimeout(resolve, 100));
    product.simulator.faults.reset();
    const pressedTryAgain = visitors.reduce((count, visitor) => count + visitor.retryFailed(), 0);
    const outcomes = await Promise.allSettled(visitors.map((visitor) => visitor.allSent(60_000)));
    const served = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;

    const conversations = [...product.simulator.store.conversations.keys()];
    const visitorTexts = conversations.map((id) =>
      (product!.simulator.store.messages.get(id) ?? [])
        .filter((message) => message.sender === 'visitor')
        .map((message) => message.text),
    );
    const empty = visitorTexts.filter((list) => list.length === 0).length;
    console.log(
      `lost create answers, half of the answers ${fault}: ${served} of ${VISITORS} visitors' messages sent, ${conversations.length} conversations upstream, ${empty} empty; "Try again" pressed ${pressedTryAgain} times`,
    );
    expect(served).toBe(VISITORS);
    expect(empty).toBe(0);
    expect(visitorTexts.flat().sort()).toEqual([...texts].sort());
  },
  240_000,
);
