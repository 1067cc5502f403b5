// Child-process entry: the generated catalog (test/fixtures/generated-catalog.ts, 40 services x
// 50 tools per copy) served by SDK 2.x upstreams behind one port in ONE process
// (test/fixtures/catalog-fleet.ts); prints `{"urls":{service: url}}` on stdout and serves until
// SIGTERM. argv[2]: the number of copies. Recorded requests are cleared each second so they
// never grow without bound.
import { startCatalogFleet } from '../../test/fixtures/catalog-fleet.ts';
import { generatedCatalog } from '../../test/fixtures/generated-catalog.ts';

const fleet = await startCatalogFleet(generatedCatalog(Number(process.argv[2] ?? '1')));
const sweep = setInterval(() => {
  fleet.received.length = 0;
}, 1000);
process.stdout.write(`${JSON.stringify({ urls: fleet.urls })}\n`);

process.once('SIGTERM', () => {
  clearInterval(sweep);
  void fleet.close().finally(() => process.exit(0));
});
