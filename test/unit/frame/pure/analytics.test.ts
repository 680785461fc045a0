import { describe, expect, it } from 'vitest';
import { ANALYTICS_ENDPOINT, createAnalytics, type AnalyticsEvent } from '../../../../src/frame/analytics.ts';

const EVENTS: AnalyticsEvent[] = ['chat_opened', 'message_sent', 'escalated', 'chat_ended'];

function recorder() {
  const sent: string[] = [];
  return { sent, send: (url: string) => void sent.push(url) };
}

function ids() {
  let next = 0;
  return () => {
    next += 1;
    return `cid-${next}`;
  };
}

describe('createAnalytics', () => {
  it.each([
    null,
    '',
    'UA-12345678-1',
    'AW-123456789',
    'GT-ABCD1234',
    'DC-ABCD1234',
    'G-',
    'g-abcd1234',
    ' G-ABCD1234',
    'G-ABCD1234&x=1',
  ])('sends nothing with the tag id %j', (tag) => {
    const { sent, send } = recorder();
    const analytics = createAnalytics(tag, 'https://smile.example', send, ids());
    for (const event of EVENTS) analytics.track(event);
    expect(sent).toEqual([]);
  });

  it('sends nothing when the page origin is not an http(s) URL', () => {
    const { sent, send } = recorder();
    for (const origin of ['', 'null', 'file:///tmp/page.html', 'about:blank']) {
      const analytics = createAnalytics('G-ABCD1234', origin, send, ids());
      for (const event of EVENTS) analytics.track(event);
    }
    expect(sent).toEqual([]);
  });

  it('sends exactly v, tid, cid, en and dl for each event', () => {
    const { sent, send } = recorder();
    const analytics = createAnalytics('G-ABCD1234', 'https://smile.example', send, ids());
    for (const event of EVENTS) analytics.track(event);
    expect(sent).toHaveLength(EVENTS.length);
    sent.forEach((raw, index) => {
      const url = new URL(raw);
      expect(`${url.origin}${url.pathname}`).toBe(ANALYTICS_ENDPOINT);
      expect(url.hash).toBe('');
      expect([...url.searchParams.keys()].sort()).toEqual(['cid', 'dl', 'en', 'tid', 'v']);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        v: '2',
        tid: 'G-ABCD1234',
        cid: 'cid-1',
        en: EVENTS[index],
        dl: 'https://smile.example',
      });
    });
  });

  it('keeps only the origin of the page, even from a full URL', () => {
    const { sent, send } = recorder();
    createAnalytics(
      'G-ABCD1234',
      'https://User:pw@Smile.Example:8443/new-patients/root-canal?name=Ann#book',
      send,
      ids(),
    ).track('chat_opened');
    const raw = sent[0] ?? '';
    expect(new URL(raw).searchParams.get('dl')).toBe('https://smile.example:8443');
    for (const leak of ['root-canal', 'Ann', 'book', 'pw', 'User']) expect(raw).not.toContain(leak);
  });

  it('makes one client id per instance and keeps it for every event', () => {
    const { sent, send } = recorder();
    const randomId = ids();
    const first = createAnalytics('G-ABCD1234', 'https://smile.example', send, randomId);
    first.track('chat_opened');
    first.track('message_sent');
    createAnalytics('G-ABCD1234', 'https://smile.example', send, randomId).track('chat_opened');
    expect(sent.map((raw) => new URL(raw).searchParams.get('cid'))).toEqual(['cid-1', 'cid-1', 'cid-2']);
  });

  it('never throws when sending fails', () => {
    const analytics = createAnalytics(
      'G-ABCD1234',
      'https://smile.example',
      () => {
        throw new TypeError('beacon refused');
      },
      ids(),
    );
    expect(() => analytics.track('chat_ended')).not.toThrow();
  });
});
