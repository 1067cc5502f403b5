// Incremental Server-Sent Events reader (WHATWG HTML §9.2 event stream format): yields the
// data of each event as it arrives, so upstream streams are relayed, never buffered whole.
// Comment lines (keep-alives) and event names/ids are ignored: MCP puts one JSON-RPC message
// in each event's data (spec digest b.2).

export async function* readSseData(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const chunk of chunks) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = buffer.slice(0, nl);
      const sepLen = buffer.startsWith('\r\n', nl) ? 2 : 1;
      buffer = buffer.slice(nl + sepLen);
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
    }
  }
  // Lenient at end of stream: a last event without its blank line is still delivered.
  if (buffer.startsWith('data:')) data.push(buffer.slice(5).replace(/^ /, ''));
  if (data.length > 0) yield data.join('\n');
}
