// V8 settings `gatehouse serve` runs with, set before the gateway is loaded.
//
// Allocation-site pretenuring is off. V8 allocates the objects of an object or array literal
// straight into the old generation once most of the objects that literal made were seen alive at
// a young-generation collection. A gateway's per-request objects are alive when a collection
// catches their request in flight, and an old object points at the young ones it was built
// from (the reply's text, a request's headers), which then outlive their request until the next
// full collection, and in turn make their own literals look long-lived. Measured with
// bench/probes/young-gc.ts (plain modern tools/call, 8 connections): about 570 bytes promoted
// per call with pretenuring, 180 without; with 20 KB results, 17 KB against 0.2–1.3 KB; mean
// scavenge pause 1.8 ms against 1.2 ms. Nothing in the gateway is meant to be long-lived but its
// config, catalog and tables, which are built once and promoted as usual.
//
// An operator who passes the flag on node's command line (`node --allocation-site-pretenuring
// bin/gatehouse.js serve ...`) keeps their choice; Node does not allow it in NODE_OPTIONS.
import { setFlagsFromString } from 'node:v8';

const FLAG = 'allocation-site-pretenuring';

/** Whether node's command line sets the flag already, either way (V8 takes - or _ in names). */
export function setsPretenuring(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => /^--(no-?)?allocation[-_]site[-_]pretenuring(=.*)?$/.test(arg));
}

export function tuneHeap(execArgv: readonly string[] = process.execArgv): void {
  if (setsPretenuring(execArgv)) return;
  setFlagsFromString(`--no-${FLAG}`);
}
