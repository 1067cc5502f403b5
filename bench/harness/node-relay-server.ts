// A byte relay, as the lowest yardstick of all: each client connection gets one TCP
// connection to the upstream and the bytes are piped both ways. No HTTP parsing, no JSON, no
// checks: it cannot even tell one request from the next. What is left is what Node.js costs
// to move a request and its reply through a process at all (four socket reads and writes
// plus the event loop). An L7 gateway does all of that and more. Not part of Gatehouse.
// argv: <port> <upstream port>
import { connect, createServer } from 'node:net';

const [port, upstreamPort] = process.argv.slice(2).map(Number) as [number, number];

createServer((client) => {
  const upstream = connect(upstreamPort, '127.0.0.1');
  client.setNoDelay(true);
  upstream.setNoDelay(true);
  client.pipe(upstream);
  upstream.pipe(client);
  const end = (): void => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', end).on('close', end);
  upstream.on('error', end).on('close', end);
}).listen(port, '127.0.0.1');
