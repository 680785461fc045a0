// Many idle streams held by child processes (stream-holder.ts), each within its own open-files limit and leaving from
// its own loopback address (127.0.0.2, .3, ...), so that neither this process's descriptors nor one address's
// ephemeral ports (about 28,000 towards one destination) bound how many streams the bench can hold.
import { fork, type ChildProcess } from 'node:child_process';
import type { Relay } from './relay-process.ts';
import type { HolderAnswer, HolderRequest } from './stream-holder.ts';

/** Sockets per holder (and per source address): well under a process's usual 20,000 open files and one address's ephemeral ports. */
export const STREAMS_PER_HOLDER = 12_500;
/** Streams each holder opens at once: the relay answers each with a catch-up read upstream. */
const OPENING_AT_ONCE = 100;

export interface StreamHolders {
  /** Heartbeats received so far by all streams. */
  heartbeats(): Promise<number>;
  close(): void;
}

function ask(child: ChildProcess, request: HolderRequest, expect: HolderAnswer['type']): Promise<HolderAnswer> {
  return new Promise((resolve, reject) => {
    const listen = (answer: HolderAnswer) => {
      if (answer.type !== expect && answer.type !== 'failed') return;
      child.off('message', listen);
      if (answer.type === 'failed') reject(new Error(`a stream holder failed: ${answer.error}`));
      else resolve(answer);
    };
    child.on('message', listen);
    child.send(request);
  });
}

/** Opens a stream for each handle and resolves once every one has caught up. */
export async function startStreamHolders(
  relay: Relay,
  handles: string[],
  /** The last byte of the first holder's source address: a second set of holders leaves from addresses of its own. */
  firstAddress = 2,
): Promise<StreamHolders> {
  const url = new URL(relay.url);
  const children: ChildProcess[] = [];
  for (let start = 0; start < handles.length; start += STREAMS_PER_HOLDER)
    children.push(
      fork(new URL('./stream-holder.ts', import.meta.url).pathname, [], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
  process.on('exit', () =>
    children.forEach((child) => {
      child.kill('SIGKILL');
    }),
  );
  await Promise.all(
    children.map((child, index) =>
      ask(
        child,
        {
          type: 'open',
          host: url.hostname,
          port: Number(url.port),
          origin: relay.url,
          localAddress: `127.0.0.${firstAddress + index}`,
          handles: handles.slice(index * STREAMS_PER_HOLDER, (index + 1) * STREAMS_PER_HOLDER),
          concurrency: OPENING_AT_ONCE,
        },
        'opened',
      ),
    ),
  );
  return {
    async heartbeats() {
      const counts = await Promise.all(children.map((child) => ask(child, { type: 'count' }, 'counted')));
      return counts.reduce((sum, answer) => sum + (answer.type === 'counted' ? answer.heartbeats : 0), 0);
    },
    close() {
      children.forEach((child) => {
        child.send({ type: 'close' } satisfies HolderRequest);
      });
    },
  };
}
