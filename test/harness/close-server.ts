// Closes a Node HTTP server at once, keep-alive connections included (close() alone waits
// for idle ones to time out).
import type { Server } from 'node:http';

export async function closeServer(server: Server | undefined): Promise<void> {
  if (server === undefined) return;
  const closed = new Promise<void>((r) => server.close(() => r()));
  server.closeAllConnections();
  await closed;
}
