// Runs the official MCP conformance suite on Node 20, loaded with `node --import`.
// 1. The suite imports `globSync` from "fs", which Node has only from 22: a resolve hook
//    hands the suite's own imports of fs a module that adds it (fs-with-glob.mjs).
// 2. Several scenario servers call listen(port) with no host, which binds every interface.
//    Here such a call binds 127.0.0.1 instead, synchronously as before (some scenarios read
//    server.address() right after listen()): the socket is bound first, then handed to listen.
import { register } from 'node:module';
import net from 'node:net';

register(new URL('./fs-resolve-hook.mjs', import.meta.url));

const { TCP, constants } = process.binding('tcp_wrap');
const listen = net.Server.prototype.listen;

/** The port of a host-less TCP listen call, or undefined when the call names a host, a path or a handle. */
function hostlessPort(args) {
  const [first, second] = args;
  if (first === undefined || typeof first === 'function') return 0;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) return typeof second === 'string' ? undefined : Number(first);
  if (first && typeof first === 'object' && first.host === undefined && first.path === undefined && first.fd === undefined && first._handle === undefined && !(first instanceof TCP)) {
    return first.port === undefined ? 0 : Number(first.port);
  }
  return undefined;
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const port = hostlessPort(args);
  if (port === undefined) return listen.apply(this, args);
  const callback = args.find((a) => typeof a === 'function');
  const handle = new TCP(constants.SERVER);
  if (handle.bind('127.0.0.1', port) !== 0) {
    handle.close();
    return listen.call(this, port, '127.0.0.1', ...(callback ? [callback] : []));
  }
  return listen.call(this, handle, ...(callback ? [callback] : []));
};
