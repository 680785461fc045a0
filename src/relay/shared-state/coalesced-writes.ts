// Commands a Redis client issues within one turn of the event loop leave in one socket write. ioredis writes each
// command as it is issued, one system call apiece, and on a loaded relay those writes were the largest item of its
// CPU profile: every request's quota and retired-handle check, and a send's records. When a batch of Redis answers
// arrives, the requests it wakes issue their next commands in the same turn, and these now go out together.
//
// Only the write is held, and only until the turn's microtasks have run (process.nextTick): each command is still
// issued, queued, timed and answered by ioredis exactly as before, and nothing is held while the client is not
// connected. Holding writes longer (until setImmediate, after every I/O callback of the loop's iteration) saved more
// system calls but made Redis wait for the relay's whole iteration before each step, which cost a send's five round trips
// more time than it saved. This is not ioredis's auto-pipelining, which keeps commands in a pipeline of its own,
// outside the client's queue, and can send one again after an outage.
import type { Redis } from 'ioredis';

/** Wraps `client.sendCommand` so that the commands of one turn share a socket write. */
export function coalesceWrites(client: Redis): void {
  let corked: Redis['stream'] | null = null;
  const release = () => {
    const stream = corked;
    corked = null;
    stream?.uncork();
  };
  const sendCommand = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    // A pipeline's or a transaction's commands (`stream` given) are written by the pipeline at once anyway; a
    // client that is not ready queues them offline, with no socket to hold.
    if (stream === undefined && corked === null && client.status === 'ready' && client.stream?.writable) {
      corked = client.stream;
      corked.cork();
      process.nextTick(release);
    }
    return sendCommand(command, stream);
  };
}
