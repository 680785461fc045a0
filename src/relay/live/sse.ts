// The text/event-stream frames the relay writes (the format src/shared/wire.ts fixes). Data is JSON on one line, so
// no field can break a frame; ids are message sequences.

export const sseEvent = (event: string, data: unknown, id?: number): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A comment: ignored by parsers, it tells the panel (and any proxy) the stream is alive. */
export const sseComment = (text: string): string => `: ${text}\n\n`;
