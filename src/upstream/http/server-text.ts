// Text an authorization server sends back, for the gateway's OAuth clients (client credentials,
// per-user authorization, token exchange): a body read up to a byte bound, and server-chosen
// text made safe to put into an error message or a log line.
import type { Dispatcher } from 'undici';

/** The body as UTF-8, or undefined (and the body destroyed) once it passes `maxBytes`. */
export async function readBoundedText(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Server-chosen text in messages: printable, one line, bounded. */
export function shown(text: string, max = 200): string {
  const clean = text.replace(/[^\x20-\x7E]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
