// A live stream's sink whose client takes everything at once: it keeps each frame written, with the time it was
// written, for tests of what the hub puts on a connection.
import type { StreamSink } from '../../src/relay/live/stream-sink.ts';

export function recordingSink() {
  const frames: { at: number; text: string }[] = [];
  const sink: StreamSink = {
    write(text) {
      frames.push({ at: Date.now(), text: typeof text === 'string' ? text : Buffer.from(text).toString() });
      return true;
    },
    unsent: 0,
    drained: () => Promise.resolve(),
    end: () => {},
    destroy: () => {},
    onClose: () => {},
  };
  return { sink, frames, heartbeats: () => frames.filter((frame) => frame.text === ': heartbeat\n\n') };
}
