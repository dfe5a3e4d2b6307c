import { grantedUnits, updateDocument, type Organization, type Person } from './command-data.js';
import type { BenchWorld } from './command-workloads.js';
import { percentile, type Row } from './measure.js';
import type { ServiceClient } from './service-client.js';

const SAMPLES = 30;
const POLL_MS = 2;
const TIMEOUT_MS = 30_000;

/**
 * Reactor lag, as an organization sees it: a person publishes a new version of a record granted on
 * manual slots; the time from the publish's answer until its first update proposal is listed. Each
 * publish waits until the job queue is quiet, so each figure is the reaction alone (log → reactor
 * → job → proposal), not a wait behind the previous job: one job walks all 20 slots in turn.
 */
export async function reactorLag(world: BenchWorld, label: string | null, quiet: () => Promise<void>): Promise<Row> {
  const [person] = await world.people.first(1);
  const unit = (await grantedUnits(world.api, world.org, [person!], 1))[0]![0]!;
  const lags: number[] = [];
  for (let version = 2; version < 2 + SAMPLES; version++) {
    await quiet();
    await updateDocument(world.api, person!, unit.documentId, `Lag ${version}`);
    const published = performance.now();
    await untilProposed(world.api, world.org, person!, unit.requestId, version);
    lags.push(performance.now() - published);
  }
  return {
    section: 'projection',
    name: 'reactor lag: publish → update proposal visible',
    count: lags.length,
    p50ms: percentile(lags, 50),
    p99ms: percentile(lags, 99),
    note: [label, 'one publish at a time on a quiet queue, polled every 2 ms'].filter((n) => n !== null).join('; '),
  };
}

async function untilProposed(api: ServiceClient, org: Organization, person: Person, requestId: string, version: number): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const { proposals } = await api.call<{ proposals: Array<{ newVersion: number }> }>('GET', `/org/v1/requests/${requestId}/proposals`, {
      token: org.memberToken,
    });
    if (proposals.some((p) => p.newVersion === version)) return;
    if (Date.now() > deadline) throw new Error(`no proposal of version ${version} for ${person.email} after ${TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
