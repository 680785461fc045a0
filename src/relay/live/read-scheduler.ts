// At most `concurrency` upstream reads at once for all the watches of an instance, in the order they fell due: ten
// thousand watched conversations become a steady trickle of reads, never a stampede on the service.

export interface ReadScheduler {
  run<T>(read: () => Promise<T>): Promise<T>;
  readonly waiting: number;
}

export function createReadScheduler(concurrency: number): ReadScheduler {
  let running = 0;
  const queue: (() => void)[] = [];
  const next = () => {
    if (running >= concurrency) return;
    const start = queue.shift();
    if (start !== undefined) start();
  };
  return {
    get waiting() {
      return queue.length;
    },
    run(read) {
      return new Promise((resolve, reject) => {
        queue.push(() => {
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
