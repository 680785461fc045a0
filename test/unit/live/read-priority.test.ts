// The instance's read scheduler: when the service answers slowly and reads queue, a safety-net read (which only looks
// for a lost event) waits behind every other read, so that thousands of them never hold back a new stream's
// catch-up or the read a service event asked for.
import { describe, expect, it } from 'vitest';
import { createReadScheduler } from '../../../src/relay/live/read-scheduler.ts';

describe('the read scheduler', () => {
  it('runs a read queued now before safety-net reads that fell due earlier, within its concurrency', async () => {
    const scheduler = createReadScheduler(1);
    const started: string[] = [];
    const releases: (() => void)[] = [];
    const read = (name: string) => () =>
      new Promise<string>((resolve) => {
        started.push(name);
        releases.push(() => resolve(name));
      });
    const all = [
      scheduler.run(read('first')),
      scheduler.run(read('net 1'), 'background'),
      scheduler.run(read('net 2'), 'background'),
      scheduler.run(read('catch-up')),
    ];
    expect(started).toEqual(['first']);
    expect(scheduler.waiting).toBe(3);
    for (let done = 0; done < 4; done++) {
      releases[done]!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(all)).toEqual(['first', 'net 1', 'net 2', 'catch-up']);
    expect(started).toEqual(['first', 'catch-up', 'net 1', 'net 2']);
  });
});
