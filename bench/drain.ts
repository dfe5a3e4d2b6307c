import type pg from 'pg';
import { benchOrganization, grantedUnits, SETUP_CONCURRENCY, signIn, SLOTS, type Organization } from './command-data.js';
import { CpuMeter, cpuNote } from './cpu-spent.js';
import { percentile, type Row } from './measure.js';
import { inParallel, queriesSent, type ServiceClient } from './service-client.js';

/** Keeps pended per organization: the drain the issue asks about (issue 48). */
export const PENDING_PER_DRAIN = 100;
const DRAIN_TIMEOUT_MS = 10 * 60_000;
const POLL_MS = 25;

export type DrainContext = {
  readonly api: ServiceClient;
  readonly db: pg.Client;
  readonly pids: readonly number[];
  readonly instances: readonly ServiceClient[];
  readonly label: string | null;
  readonly untilQuiet: () => Promise<void>;
};

type Sealed = { readonly org: Organization };

/**
 * The drain of 100 pending keeps as a person meets it (R-KEEP-11): `clients` organizations, each
 * with PENDING_PER_DRAIN keeps pended while its key was sealed, whose members sign in at once.
 * Each sign-in's KeyWarmed queues the drain job, which keeps them. A drain lasts from its member's
 * sign-in to its organization's last keep materialized; the rate is keeps materialized a second.
 */
export async function benchDrain(ctx: DrainContext, clients: number): Promise<Row> {
  const sealed = await inParallel(Array.from({ length: clients }), SETUP_CONCURRENCY, () => sealedOrganization(ctx.api));
  await ctx.untilQuiet();
  const organizationIds = sealed.map((s) => s.org.organizationId);
  const keptBefore = await copiesKept(ctx.db, organizationIds);
  const queriesBefore = await queriesSent(ctx.instances);
  const cpu = await CpuMeter.start(ctx.pids);
  const started = performance.now();
  const signedIn = Promise.allSettled(sealed.map((s) => signIn(ctx.api, s.org.organizationId, s.org.ownerToken)));
  const durations = await untilMaterialized(ctx.db, sealed, started);
  const elapsed = (performance.now() - started) / 1000;
  const failedSignIns = (await signedIn).filter((r) => r.status === 'rejected').length;
  const spent = await cpu.spent();
  await ctx.untilQuiet();
  const queries = (await queriesSent(ctx.instances)) - queriesBefore;
  const kept = (await copiesKept(ctx.db, organizationIds)) - keptBefore;
  const keeps = clients * PENDING_PER_DRAIN;
  return {
    section: 'commands',
    name: `drain of ${PENDING_PER_DRAIN} pending keeps (a sign-in's drain job; per second: keeps)`,
    clients,
    count: keeps,
    perSecond: keeps / elapsed,
    p50ms: percentile(durations, 50),
    p99ms: percentile(durations, 99),
    errors: failedSignIns + Math.abs(kept - keeps),
    note: [
      ctx.label,
      `${clients} organizations, p50/p99 the drain's duration`,
      kept === keeps ? `CopyKept ×${kept} = pended` : `CHECK FAILED: ${kept} CopyKept for ${keeps} pended`,
      `${(queries / keeps).toFixed(1)} queries a keep`,
      cpuNote(spent, keeps, 'service', 'a keep'),
    ]
      .filter((n) => n !== null)
      .join('; '),
  };
}

/** An organization of its own whose key is sealed, with one person's PENDING_PER_DRAIN keeps pended on its SLOTS slots. */
async function sealedOrganization(api: ServiceClient): Promise<Sealed> {
  const org = await benchOrganization(api);
  const [units] = await grantedUnits(api, org, [await api.person()], PENDING_PER_DRAIN / SLOTS);
  await api.call('POST', '/org/v1/key/seal', { token: org.memberToken });
  let pending = 0;
  for (const u of units!) {
    for (const slotId of org.slotIds) {
      const { adoptions } = await api.call<{ adoptions: Array<{ state: string }> }>(
        'POST',
        `/org/v1/requests/${u.requestId}/slots/${slotId}/adopt`,
        { token: org.memberToken },
      );
      pending += adoptions.filter((a) => a.state === 'pending').length;
    }
  }
  if (pending !== PENDING_PER_DRAIN) throw new Error(`the sealed organization pended ${pending} keeps, not ${PENDING_PER_DRAIN}`);
  return { org };
}

/** Each organization's drain duration (ms from `started`), once every one has its pending keeps materialized. */
async function untilMaterialized(db: pg.Client, sealed: readonly Sealed[], started: number): Promise<number[]> {
  const done = new Map<string, number>();
  const ids = sealed.map((s) => s.org.organizationId);
  while (done.size < sealed.length) {
    if (performance.now() - started > DRAIN_TIMEOUT_MS)
      throw new Error(`${sealed.length - done.size} drains unfinished after ${DRAIN_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
    const { rows } = await db.query<{ organization_id: string; n: string }>(
      `SELECT organization_id, count(*) AS n FROM rm.adoptions
        WHERE organization_id = ANY($1) AND state = 'materialized' GROUP BY organization_id`,
      [ids],
    );
    const now = performance.now() - started;
    for (const r of rows) if (Number(r.n) >= PENDING_PER_DRAIN && !done.has(r.organization_id)) done.set(r.organization_id, now);
  }
  return [...done.values()];
}

/** CopyKept events of these organizations' requests in the log. */
async function copiesKept(db: pg.Client, organizationIds: readonly string[]): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM es.events WHERE type = 'CopyKept' AND data->>'organizationId' = ANY($1)`,
    [organizationIds],
  );
  return Number(rows[0]!.n);
}
