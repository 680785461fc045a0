// At most `concurrency` upstream reads at once for all the watches of an instance, in the order they fell due: ten
// thousand watched conversations become a steady trickle of reads, never a stampede on the service. Safety-net reads
// (nothing suggests a change, they look for a lost event) wait behind every other read: when the service answers
// slowly, thousands of them queued must not hold back a new stream's catch-up or the read an event asked for.

/** `background`: a read that may wait for every `now` read queued, whenever it fell due. */
export type ReadPriority = 'now' | 'background';

export interface ReadScheduler {
  run<T>(read: () => Promise<T>, priority?: ReadPriority): Promise<T>;
  readonly waiting: number;
}

export function createReadScheduler(concurrency: number): ReadScheduler {
  let running = 0;
  const queues: Record<ReadPriority, (() => void)[]> = { now: [], background: [] };
  const next = () => {
    if (running >= concurrency) return;
    const start = queues.now.shift() ?? queues.background.shift();
    if (start !== undefined) start();
  };
  return {
    get waiting() {
      return queues.now.length + queues.background.length;
    },
    run(read, priority = 'now') {
      return new Promise((resolve, reject) => {
        queues[priority].push(() => {
          running += 1;
          read()
            .then(resolve, reject)
            .finally(() => {
              running -= 1;
              next();
            });
        });
        next();
      });
    },
  };
}
