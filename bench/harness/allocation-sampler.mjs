// Preloaded into a Gatehouse process by bench/probes/allocations.ts (node --import): the first
// SIGUSR2 starts V8's sampling heap profiler, counting objects the garbage collector has
// already freed too (so it samples every allocation, not what is still alive); the second
// stops it and writes the profile to $GATEHOUSE_ALLOCATION_PROFILE. Plain JavaScript: the
// gateway runs its compiled dist/, with no TypeScript loader. Nothing is written to stdout.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const SAMPLING_INTERVAL_BYTES = 512;
const session = new Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
const report = (e) => void process.stderr.write(`allocation sampler: ${e instanceof Error ? e.message : String(e)}\n`);
let sampling = false;
process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    post('HeapProfiler.enable')
      .then(() => post('HeapProfiler.startSampling', { samplingInterval: SAMPLING_INTERVAL_BYTES, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }))
      .catch(report);
    return;
  }
  sampling = false;
  post('HeapProfiler.stopSampling')
    .then((r) => writeFileSync(process.env.GATEHOUSE_ALLOCATION_PROFILE, JSON.stringify(r.profile)))
    .catch(report);
});
