import { grantedUnits, keepOne, SETUP_CONCURRENCY } from './command-data.js';
import { commandWorkloads, identityWorkloads, type BenchWorld, type Workload } from './command-workloads.js';
import type { Call } from './load.js';
import { inParallel } from './service-client.js';

/** One kind of call of the soak: its share of every hundred requests, and the scripts that send it. */
export type Traffic = { readonly name: string; readonly share: number; readonly source: Pick<Workload, 'scripts'> };

/**
 * The soak's mix. Reads are most of it, as in use; the calls that use up a prepared record (keep,
 * proposal adopt, login) are the smaller shares, since ten minutes of them are prepared before the
 * first window. Publishes and corrects chain on their own records and never run out. Logins come
 * last: they are prepared last, and their codes expire fifteen minutes after they were mailed.
 */
export function soakMix(world: BenchWorld): Traffic[] {
  const [publish, keep, correct, adopt] = commandWorkloads(world);
  const [logins, tokenChecks] = identityWorkloads(world);
  return [
    { name: 'publish', share: 20, source: publish! },
    { name: 'correct', share: 15, source: correct! },
    { name: 'keep', share: 10, source: keep! },
    { name: 'proposal adopt', share: 5, source: adopt! },
    { name: 'user.me', share: 25, source: tokenChecks! },
    { name: 'copies list', share: 20, source: copiesLists(world) },
    { name: 'login', share: 5, source: logins! },
  ];
}

/**
 * A listed request has a few copies, as most have. The list opens each copy's kept and current data
 * one after the other: with every slot of the bench's manifest kept (twenty) a list took 300-450 ms
 * in this mix at 100/s (12 ms alone), its lane fell behind, and the soak measured that one call.
 */
const LISTED_COPIES = 4;

/** The organization lists the copies of a request: one request per stream, LISTED_COPIES slots of it kept. */
function copiesLists({ api, org, people }: BenchWorld): Pick<Workload, 'scripts'> {
  return {
    async scripts(streams) {
      const units = (await grantedUnits(api, org, await people.first(streams), 1)).map((mine) => mine[0]!);
      const keeps = units.flatMap((unit) => org.slotIds.slice(0, LISTED_COPIES).map((slotId) => ({ unit, slotId })));
      await inParallel(keeps, SETUP_CONCURRENCY, ({ unit, slotId }) => keepOne(api, org, unit, slotId));
      return units.map((unit) => {
        const call: Call = { method: 'GET', path: `/org/v1/requests/${unit.requestId}/copies`, token: org.memberToken };
        return { next: () => call };
      });
    },
  };
}
