// Analytics for the practice's own GA4 property, coarse on purpose: an event name and the page's origin. Message text,
import { isGa4TagId } from '../shared/configuration.ts';
// handles, conversation ids and the page's path or query (which can name a condition) cannot reach it: nothing here
// accepts them.

export type AnalyticsEvent = 'chat_opened' | 'message_sent' | 'escalated' | 'chat_ended';

export interface Analytics {
  track(event: AnalyticsEvent): void;
}

export const ANALYTICS_ENDPOINT = 'https://www.google-analytics.com/g/collect';

const NOTHING: Analytics = { track() {} };

/**
 * Returns an Analytics that sends a GA4 hit through `send` (the app passes navigator.sendBeacon) for each event, or one
 * that sends nothing at all when there is no GA4 tag id or the page origin is not an http(s) URL. The client id is
 * made once per instance and never stored.
 */
export function createAnalytics(
  googleTagId: string | null,
  pageOrigin: string,
  send: (url: string) => void,
  randomId: () => string,
): Analytics {
  // Only a GA4 measurement id speaks this protocol; Universal Analytics (UA-), Ads (AW-) and other tags do not.
  if (!isGa4TagId(googleTagId)) return NOTHING;
  const origin = originOf(pageOrigin);
  if (origin === null) return NOTHING;
  const clientId = randomId();

  return {
    track(event) {
      const params = new URLSearchParams({ v: '2', tid: googleTagId, cid: clientId, en: event, dl: origin });
      try {
        send(`${ANALYTICS_ENDPOINT}?${params.toString()}`);
      } catch {
        // Analytics must never break the chat.
      }
    },
  };
}

/** Scheme, host and port only, even when handed a full URL. */
function originOf(page: string): string | null {
  try {
    const url = new URL(page);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}
