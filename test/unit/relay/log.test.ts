// The request log line is built by hand for speed (log.ts); it must be exactly the JSON the generic logger would write.
// The batched writer writes lines together, by size or after a short wait, in order, and never loses what it queued.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createBatchedWriter,
  createJsonLogger,
  requestLevel,
  requestLine,
  type RequestLogLine,
} from '../../../src/relay/log.ts';

describe('requestLine', () => {
  const viaStringify = (time: Date, line: RequestLogLine) =>
    JSON.stringify({
      time: time.toISOString(),
      level: requestLevel(line.status, line.code),
      event: 'request',
      ...line,
    });

  it('is the same text JSON.stringify gives, for any strings (quotes, backslashes, control characters, unicode)', () => {
    const line = fc.record(
      {
        request_id: fc.string({ unit: 'binary' }),
        method: fc.string(),
        route: fc.string({ unit: 'binary' }),
        client_id: fc.option(fc.string({ unit: 'binary' }), { nil: null }),
        status: fc.integer({ min: 100, max: 599 }),
        latency_ms: fc.double({ min: 0, max: 1e6, noNaN: true }),
        code: fc.oneof(fc.string(), fc.constantFrom('upstream_unavailable', 'upstream_timeout', 'internal')),
        cause: fc.string(),
      },
      { requiredKeys: ['request_id', 'method', 'route', 'client_id', 'status', 'latency_ms'] },
    );
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), line, (time, fields) => {
        const text = requestLine(time, fields);
        expect(text).toBe(viaStringify(time, fields));
        expect(JSON.parse(text)).toEqual(JSON.parse(viaStringify(time, fields)));
      }),
      { numRuns: 3000 },
    );
    // Three thousand generated lines are seconds of CPU, shared with the other test files running beside this one:
    // a limit on the whole property, not on any one line.
  }, 60_000);

  it('is what the logger writes for a request', () => {
    const lines: string[] = [];
    const time = new Date('2026-11-23T10:00:00.000Z');
    const request = {
      request_id: 'r1',
      method: 'GET',
      route: '/v1/conversation/messages',
      client_id: 'demo-client',
      status: 409,
      latency_ms: 1.5,
      code: 'conversation_resolved',
    };
    createJsonLogger(
      (text) => lines.push(text),
      () => time,
    ).request(request);
    expect(JSON.parse(lines[0]!)).toEqual({
      time: '2026-11-23T10:00:00.000Z',
      level: 'info',
      event: 'request',
      ...request,
    });
  });
});

describe('createBatchedWriter', () => {
  afterEach(() => vi.useRealTimers());

  it('writes queued lines together after flushAfterMs, in order, one chunk', () => {
    vi.useFakeTimers();
    const chunks: string[] = [];
    const out = createBatchedWriter(
      (chunk) => chunks.push(chunk),
      () => 0,
      { flushAfterMs: 50 },
    );
    out.write('a');
    out.write('b');
    vi.advanceTimersByTime(49);
    expect(chunks).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(chunks).toEqual(['a\nb\n']);
    out.write('c');
    vi.advanceTimersByTime(50);
    expect(chunks).toEqual(['a\nb\n', 'c\n']);
  });

  it('writes at once when flushBytes are queued, and flush() writes the rest', () => {
    vi.useFakeTimers();
    const chunks: string[] = [];
    const out = createBatchedWriter(
      (chunk) => chunks.push(chunk),
      () => 0,
      { flushBytes: 10, flushAfterMs: 1000 },
    );
    out.write('12345');
    out.write('6789'); // 5 + 1 + 4 + 1 = 11 bytes queued
    expect(chunks).toEqual(['12345\n6789\n']);
    out.write('x');
    out.flush();
    expect(chunks).toEqual(['12345\n6789\n', 'x\n']);
    vi.advanceTimersByTime(1000);
    expect(chunks).toHaveLength(2); // the timer went with the flush
  });

  it('drops lines while the destination is behind, and says how many', () => {
    vi.useFakeTimers();
    const chunks: string[] = [];
    let pending = 0;
    const out = createBatchedWriter(
      (chunk) => chunks.push(chunk),
      () => pending,
      { maxPendingBytes: 100 },
    );
    out.write('kept');
    pending = 101;
    out.write('lost 1');
    out.write('lost 2');
    pending = 0;
    out.flush();
    const lines = chunks.join('').trim().split('\n');
    expect(lines[0]).toBe('kept');
    expect(JSON.parse(lines[1]!)).toMatchObject({
      level: 'warn',
      message: 'dropped 2 log lines: the log destination is not keeping up',
    });
  });
});
