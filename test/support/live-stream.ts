// Reads GET /v1/conversation/events the way a test needs it: every frame parsed as it arrives, and `next(predicate)`
// waiting (bounded) for the first event that matches.

export interface StreamEvent {
  event: string;
  id?: string;
  data?: unknown;
}

export interface OpenedStream {
  answer: Response;
  events: StreamEvent[];
  next(predicate: (event: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent>;
  ended(): boolean;
  cancel(): Promise<void>;
}

/** Starts reading `answer`'s body in the background; the caller cancels it (or the server ends it). */
export function readStream(answer: Response): OpenedStream {
  const events: StreamEvent[] = [];
  let raw = '';
  let ended = false;
  const waiters: (() => void)[] = [];
  void (async () => {
    const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        raw += value;
        for (let boundary = raw.indexOf('\n\n'); boundary !== -1; boundary = raw.indexOf('\n\n')) {
          const frame = raw.slice(0, boundary);
          raw = raw.slice(boundary + 2);
          const fields = Object.fromEntries(
            frame
              .split('\n')
              .filter((line) => !line.startsWith(':'))
              .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
          );
          events.push(
            frame.startsWith(':')
              ? { event: 'comment', data: frame.slice(2) }
              : {
                  event: fields.event ?? 'message',
                  id: fields.id,
                  data: fields.data === undefined ? undefined : JSON.parse(fields.data),
                },
          );
          waiters.splice(0).forEach((wake) => {
            wake();
          });
        }
      }
    } catch {
      // cancelled by the test
    }
    ended = true;
    waiters.splice(0).forEach((wake) => {
      wake();
    });
  })();
  const next = async (predicate: (event: StreamEvent) => boolean, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = events.find(predicate);
      if (found) return found;
      if (ended || Date.now() > deadline)
        throw new Error(`no such event within ${timeoutMs} ms; got ${JSON.stringify(events)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  return {
    answer,
    events,
    next,
    ended: () => ended,
    cancel: async () => void (await answer.body?.cancel().catch(() => {})),
  };
}

export const messageTexts = (events: StreamEvent[]) =>
  events.filter((event) => event.event === 'message').map((event) => (event.data as { text: string }).text);
