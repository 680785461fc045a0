// Polling is how the panel hears replies where the live stream does not work (chat-model.ts), so it is quick while a
// reply is likely and slows down (or stops) when nobody is looking, to spare the relay, the upstream quota and the
// visitor's battery.

export const POLL_FAST_MS = 1000;
export const POLL_IDLE_MS = 5000;
export const POLL_SLOW_MS = 15000;
/** How long after the visitor sends that a reply is still likely. */
export const RECENT_SEND_MS = 30_000;

export interface PollContext {
  msSinceVisitorSent: number | null;
  panelOpen: boolean;
  tabHidden: boolean;
  awaitingReply: boolean;
}

/** How long until the next poll of the relay, or null to pause. */
export function nextPollDelayMs(context: PollContext): number | null {
  if (context.tabHidden) return null;
  // Closed, the loader still shows an unread count, so keep listening, slowly.
  if (!context.panelOpen) return POLL_SLOW_MS;
  // A negative value (the clock stepped back) still means "just sent".
  const sentRecently = context.msSinceVisitorSent !== null && context.msSinceVisitorSent < RECENT_SEND_MS;
  return context.awaitingReply || sentRecently ? POLL_FAST_MS : POLL_IDLE_MS;
}
