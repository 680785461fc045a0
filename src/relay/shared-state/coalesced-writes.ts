// Commands a Redis client issues together leave in one socket write. ioredis writes each command as it is issued, one
// system call apiece, and on a loaded relay those writes were the largest item of its CPU profile: every request's
// quota and retired-handle check, and a send's records.
//
// Two kinds of command, held for two lengths of time:
// - a request's first step (its quota and retired-handle check as it arrives, a send's record after the service
//   answered) is issued from the callback of one socket: one request a callback, so a write per turn of microtasks
//   would be a write per request. These are held until the loop iteration's I/O callbacks have run (setImmediate, as
//   undici does with the requests it queues), so every request read in that iteration shares one write;
// - a step that follows a Redis answer is issued while the answers read from Redis in one callback are handled,
//   which wakes many requests at once. These are held only until that turn's microtasks have run (process.nextTick),
//   so a chain of steps never waits for the rest of the iteration before each round trip (held that long, a send's
//   steps cost more time than the saved system calls gave back).
//
// Only the write is held: each command is still issued, queued, timed and answered by ioredis exactly as before, and
// nothing is held while the client is not connected. This is not ioredis's auto-pipelining, which keeps commands in a
// pipeline of its own, outside the client's queue, and can send one again after an outage.
import type { Redis } from 'ioredis';

/** Wraps `client.sendCommand` so that the commands issued together share a socket write. */
export function coalesceWrites(client: Redis): void {
  let corked: Redis['stream'] | null = null;
  /** A release at the end of this turn's microtasks is pending. */
  let releaseSoon = false;
  /** The turn that handles answers just read from Redis: what they wake goes out as the turn ends. */
  let answering = false;
  const release = () => {
    const stream = corked;
    corked = null;
    releaseSoon = false;
    stream?.uncork();
  };
  const answersHandled = () => {
    answering = false;
  };
  const onAnswers = () => {
    answering = true;
    // Queued from a microtask, the tick runs once every microtask the answers woke, and each of theirs, has run.
    queueMicrotask(() => process.nextTick(answersHandled));
  };
  // Before ioredis's own reader (prepended), on every connection it makes.
  client.on('connect', () => client.stream?.prependListener('data', onAnswers));
  const sendCommand = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    // A pipeline's or a transaction's commands (`stream` given) are written by the pipeline at once anyway; a
    // client that is not ready queues them offline, with no socket to hold.
    if (stream === undefined && client.status === 'ready' && client.stream?.writable) {
      if (corked === null) {
        corked = client.stream;
        corked.cork();
        if (!answering) setImmediate(release);
      }
      if (answering && !releaseSoon) {
        releaseSoon = true;
        process.nextTick(release);
      }
    }
    return sendCommand(command, stream);
  };
}
