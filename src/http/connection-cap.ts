// How many client connections the gateway holds open at once (limits.maxConnections). Node's
// own `server.maxConnections` closes a connection past its cap the moment it is accepted, so
// the client learns nothing: it sees a reset and retries at once. Here a connection past the
// cap is still accepted and marked; the request that comes on it is answered 503 with
// Retry-After (the layer in request-caps.ts), audited like any refusal, and the connection is
// then closed. Only past twice the cap does Node's own cap drop connections unanswered, so
// that a flood of idle connections cannot take every file descriptor.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export class ConnectionCap {
  #open = 0;
  readonly #over = new WeakSet<Socket>();
  readonly #servers: Server[] = [];

  /** `max`: limits.maxConnections of the config serving now (a reload may change it). */
  constructor(private readonly max: () => number) {}

  /** Counts the server's connections from now on. */
  watch(server: Server): void {
    this.#servers.push(server);
    server.maxConnections = this.max() * 2;
    server.on('connection', (socket: Socket) => this.#opened(server, socket));
  }

  /** A reload changed the cap: Node's own limit follows at once, not at the next connection it
   * accepts (past a lower old limit it would accept none, so a raised cap would never apply). */
  resize(max: number): void {
    for (const server of this.#servers) server.maxConnections = max * 2;
  }

  /** The cap now, for refusal messages. */
  get limit(): number {
    return this.max();
  }

  #opened(server: Server, socket: Socket): void {
    const max = this.max();
    server.maxConnections = max * 2;
    this.#open++;
    if (this.#open > max) this.#over.add(socket);
    socket.once('close', () => {
      this.#open--;
    });
  }

  /** Whether a request on this connection is past the cap. */
  isOver(socket: Socket): boolean {
    return this.#over.has(socket);
  }

  size(): number {
    return this.#open;
  }
}
