// Reads the relay's live stream (GET /v1/conversation/events, its format in src/shared/wire.ts) from a fetch
// Response as it arrives, and hands the panel each event, parsed. It never ends quietly: the stream's own `error`
// event, an answer that is not a stream, an event that does not parse, and a stream that just stops all end it with a
// TransportError (the last one as `network`: the connection went away without saying why).
import type { StreamStatus, WireMessage } from '../shared/wire.ts';
import { parseApiErrorCode, parseStreamReconnect, parseStreamStatus, parseWireMessage } from '../shared/wire-parse.ts';
import { eventStreamParser } from './event-stream.ts';
import { TransportError } from './transport-error.ts';

export type LiveEvent =
  /** Bytes arrived (a heartbeat among them): the stream is alive, whatever they were. */
  | { type: 'alive' }
  | { type: 'message'; data: WireMessage }
  | { type: 'status'; data: StreamStatus }
  /** The stream ends: read what was missed, then open a new one. */
  | { type: 'reconnect' }
  | { type: 'error'; data: TransportError };

const PARSERS: Record<string, (value: unknown) => unknown> = {
  message: parseWireMessage,
  status: parseStreamStatus,
  reconnect: parseStreamReconnect,
  error: parseApiErrorCode,
};

/** Resolves never; rejects with the TransportError that ended the stream. */
export async function readLiveStream(response: Response, listener: (event: LiveEvent) => void): Promise<never> {
  // A proxy's error page or a captive portal's answer, with a 200: not something to read as a stream.
  if (!/^text\/event-stream/i.test(response.headers.get('Content-Type') ?? ''))
    throw new TransportError('bad_response');
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const push = eventStreamParser((type, data) => {
    // An event type this panel does not know is for a newer one: skipped.
    if (!Object.hasOwn(PARSERS, type)) return;
    let value: unknown = null;
    try {
      value = PARSERS[type]!(JSON.parse(data));
    } catch {
      // Not JSON: handled as any event that does not parse.
    }
    if (value === null) throw new TransportError('bad_response');
    if (type === 'error') throw new TransportError(value as TransportError['code']);
    listener({ type, data: value } as LiveEvent);
  });
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    listener({ type: 'alive' });
    push(chunk.value);
  }
  throw new TransportError('network');
}
