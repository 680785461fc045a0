// Commands a Redis client issues within one turn of the event loop leave in one socket write. ioredis writes each
// command as it is issued, one system call apiece, and on a loaded relay those writes were the largest item of its
// CPU profile: every request's quota and retired-handle check, and a send's records. Under load one turn reads many
// requests and many Redis answers, and the commands they lead to now go out together.
//
// Only the write is held, until the turn's I/O callbacks have run (setImmediate, as undici does with the requests it
// queues): each command is still issued, queued, timed and answered by ioredis exactly as before, and nothing is held
// while the client is not connected. This is not ioredis's auto-pipelining, which keeps commands in a pipeline of its
// own, outside the client's queue, and can send one again after an outage.
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
      setImmediate(release);
    }
    return sendCommand(command, stream);
  };
}
