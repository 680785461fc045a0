// The page's messages from the moment loader.js starts the frame's navigation until the frame's code (frame.ts, the
// second file) arrives and reads them. The frame may say `ready` (or pick a language) before that code is there: a
// message with no listener is lost, and a panel that never heard `ready` would never open.
// The list is itself the window's listener (an EventListener object): the frame's code takes it over by giving it
// its own handleEvent, so one listener is added, in one place, and destroy() removes it whoever handles it by then.

/** Messages that came before the frame's code: a list that is its own listener. */
export type HeldMessages = MessageEvent[] & { handleEvent(event: MessageEvent): unknown };

export function holdMessages(win: Window): HeldMessages {
  const held = [] as unknown as HeldMessages;
  // Called as the list's method, so `push` adds to this list.
  held.handleEvent = held.push;
  win.addEventListener('message', held as EventListenerObject);
  return held;
}
