// Raw SSE events of a fetch Response (id, retry, data as sent), for tests that check what
// goes on the wire itself: event ids, priming events, resumption.

export interface RawEvent {
  id?: string;
  retry?: string;
  data: string;
}

/** Reads a stream's events as they come, for as long as the test wants. */
export class RawEventReader {
  readonly events: RawEvent[] = [];
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buf = '';

  constructor(res: Response) {
    this.#reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Reads until `done` says so (true) or the stream ends first (false). */
  async until(done: (events: RawEvent[]) => boolean): Promise<boolean> {
    while (!done(this.events)) {
      if (!(await this.#read())) return done(this.events);
    }
    return true;
  }

  /** Reads to the stream's end. */
  async toEnd(): Promise<RawEvent[]> {
    while (await this.#read());
    return this.events;
  }

  /** One read, its whole events parsed; false at the stream's end. */
  async #read(): Promise<boolean> {
    const { value, done } = await this.#reader.read();
    if (done) return false;
    this.#buf += value;
    for (let i = this.#buf.indexOf('\n\n'); i >= 0; i = this.#buf.indexOf('\n\n')) {
      const e: RawEvent = { data: '' };
      for (const line of this.#buf.slice(0, i).split('\n')) {
        const [field, ...rest] = line.split(':');
        const v = rest.join(':').replace(/^ /, '');
        if (field === 'id') e.id = v;
        else if (field === 'retry') e.retry = v;
        else if (field === 'data') e.data += v;
      }
      this.#buf = this.#buf.slice(i + 2);
      if (e.id !== undefined || e.data !== '') this.events.push(e);
    }
    return true;
  }

  cancel(): Promise<void> {
    return this.#reader.cancel().catch(() => undefined);
  }
}

/** Reads raw SSE events until `done` says so or the stream ends, then lets the stream go. */
export async function readEvents(res: Response, done: (events: RawEvent[]) => boolean): Promise<RawEvent[]> {
  const reader = new RawEventReader(res);
  await reader.until(done);
  await reader.cancel();
  return reader.events;
}
