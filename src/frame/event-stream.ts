// A text/event-stream parser (the WHATWG "server-sent events" format), fed text as it arrives in chunks of any size:
// lines end in CRLF, LF or CR, a CRLF may be split across two chunks, comments (":") are skipped, and the data lines
// of one event are joined with LF. The panel reads the relay's stream through fetch, not EventSource, because only
// fetch can send the handle in the Authorization header. `id` and `retry` are not used: a message's sequence is in
// its data, and the panel decides itself when to reconnect.

/** Feeds the parser the next piece of text; `dispatch` hears each complete event with its type and data. */
export function eventStreamParser(dispatch: (type: string, data: string) => void): (chunk: string) => void {
  let pending = '';
  let type = '';
  let data: string[] = [];
  let afterCR = false;
  return (chunk) => {
    // The LF of a CRLF whose CR ended the previous chunk: that line has already ended.
    const skip = afterCR && chunk[0] === '\n';
    if (chunk) afterCR = chunk.endsWith('\r');
    const lines = (pending + (skip ? chunk.slice(1) : chunk)).split(/\r\n|\r|\n/);
    pending = lines.pop()!;
    for (const line of lines) {
      if (!line) {
        // A blank line ends the event; one without data is no event (the spec's rule).
        if (data.length) dispatch(type || 'message', data.join('\n'));
        type = '';
        data = [];
        continue;
      }
      // A comment (":…", the heartbeat among them) is a field without a name: ignored like any field but these two.
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
      if (name === 'event') type = value;
      if (name === 'data') data.push(value);
    }
  };
}
