// The set-up of the core-task suites (MCP 2025-11-25 basic/utilities/tasks): a real SDK 1.x
// task server behind the gateway with API-key identity, and alice and bob as SDK 1.x clients
// that declared tasks. `moreYaml` adds top-level config (policy, audit) above the upstreams.
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startTaskUpstream, type TaskUpstream } from '../fixtures/task-upstream.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import { ALICE, BOB, IDENTITY_YAML } from './policy-env.ts';

/** What a 2025-11-25 client declares to use tasks (list and cancel included). */
export const CORE_TASKS = { tasks: { list: {}, cancel: {} } };

export interface CoreTaskBed {
  upstream: TaskUpstream;
  gw: TestGateway;
  alice: LegacyClient;
  bob: LegacyClient;
  close(): Promise<void>;
}

export async function startCoreTaskBed(moreYaml = ''): Promise<CoreTaskBed> {
  const upstream = await startTaskUpstream();
  const gw = await startTestGateway(`
${IDENTITY_YAML}
${moreYaml}
upstreams:
  - { name: up, url: "${upstream.url}" }
`);
  await gw.waitUp();
  const alice = await connectLegacyClient(gw.url, { capabilities: CORE_TASKS, headers: ALICE });
  const bob = await connectLegacyClient(gw.url, { capabilities: CORE_TASKS, headers: BOB });
  return {
    upstream,
    gw,
    alice,
    bob,
    async close() {
      await Promise.all([alice.close(), bob.close()]);
      await gw.close();
      await upstream.close();
    },
  };
}
