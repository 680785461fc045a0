// What bench:page's pages run before their own script: observers of long tasks and layout shifts, and the marker
// that tells the bench the launcher is painted.

// Long tasks and layout shifts from the first moment, and when the launcher appeared (two frames after insertion).
export const OBSERVE = () => {
  const w = window as unknown as {
    benchLong: number[];
    benchCls: number;
    benchLauncher?: number;
    benchPainted(): void;
  };
  w.benchLong = [];
  w.benchCls = 0;
  new PerformanceObserver((list) =>
    list.getEntries().forEach((entry) => {
      w.benchLong.push(entry.duration);
    }),
  ).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((list) =>
    list.getEntries().forEach((entry) => {
      const shift = entry as PerformanceEntry & { value: number; hadRecentInput: boolean };
      if (!shift.hadRecentInput) w.benchCls += shift.value;
    }),
  ).observe({ type: 'layout-shift', buffered: true });
  // Two frames after the launcher's insertion, or after load on the page without the widget: both pages run these
  // same callbacks, so the bench's own script is not counted as the widget's. (A property, not a const: tsx would
  // wrap a named const in a helper this page does not have.)
  w.benchPainted = () =>
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        w.benchLauncher = performance.now();
        // Node waits for this line rather than polling the page, whose script would count as the page's.
        console.debug('bench:painted');
      }),
    );
  addEventListener('load', () => document.querySelector('script[data-client-id]') || w.benchPainted());
  new MutationObserver((_records, observer) => {
    if (!document.querySelector('practice-chat-q7x')) return;
    observer.disconnect();
    w.benchPainted();
  }).observe(document, { childList: true, subtree: true });
};
