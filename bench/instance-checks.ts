import type pg from 'pg';
import { grantedUnit, keepOne, openProposals, personName, type GrantedUnit } from './command-data.js';
import type { BenchWorld } from './command-workloads.js';
import type { Call } from './load.js';
import type { Row } from './measure.js';
import type { ServiceClient } from './service-client.js';

/** How many members race for one record, alternating between the instances. */
const RACERS = 20;

type Answer = { readonly status: number; readonly code: string | null; readonly adoptionId: string | null };

/**
 * After the runs on two instances over one database: the invariants that two processes could
 * break and one could not. Races go to both instances at once; counts compare the log with the
 * read models on the scratch database.
 */
export async function instanceChecks(world: BenchWorld, instances: readonly ServiceClient[], db: pg.Client): Promise<Row[]> {
  const [person] = await world.people.first(1);
  const fresh = () => grantedUnit(world.api, world.org, person!);
  return [
    await keptOnce(world, instances, db, await fresh()),
    await oneCorrectWins(world, instances, await fresh()),
    await oneAdoptWins(world, instances, db, await fresh()),
    await projectedOnce(db),
  ];
}

async function race(instances: readonly ServiceClient[], call: Call): Promise<Answer[]> {
  return Promise.all(
    Array.from({ length: RACERS }, async (_, i) => {
      const { status, text } = await instances[i % instances.length]!.send(call.method, call.path, { token: call.token, body: call.body });
      const body = (text ? JSON.parse(text) : {}) as { code?: string; adoptionId?: string; adoptions?: Array<{ adoptionId: string }> };
      return { status, code: body.code ?? null, adoptionId: body.adoptionId ?? body.adoptions?.[0]?.adoptionId ?? null };
    }),
  );
}

/** "1× 200, 19× 409 version_conflict". */
function statuses(answers: readonly Answer[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const key = a.code ? `${a.status} ${a.code}` : String(a.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n}× ${k}`).join(', ');
}

const row = (name: string, problems: readonly string[], detail: string): Row => ({
  section: 'instances',
  name,
  note: problems.length === 0 ? `ok: ${detail}` : `FAILED: ${problems.join('; ')} (${detail})`,
});

async function count(db: pg.Client, sql: string, params: unknown[] = []): Promise<number> {
  const r = await db.query<{ n: string }>(sql, params);
  return Number(r.rows[0]?.n ?? 0);
}

/** Groups of `key` in `rows` that occur more than once. */
const duplicateGroups = (db: pg.Client, rows: string, key: string) =>
  count(db, `SELECT count(*) AS n FROM (SELECT 1 FROM ${rows} GROUP BY ${key} HAVING count(*) > 1) d`);

/** Keep is idempotent per (request, slot, source, version) across instances: one CopyKept, every racer answered the same adoption. */
async function keptOnce(world: BenchWorld, instances: readonly ServiceClient[], db: pg.Client, unit: GrantedUnit): Promise<Row> {
  const slotId = world.org.slotIds[0]!;
  const answers = await race(instances, {
    method: 'POST',
    path: `/org/v1/requests/${unit.requestId}/slots/${slotId}/adopt`,
    token: world.org.memberToken,
  });
  const kept = await count(db, `SELECT count(*) AS n FROM es.events WHERE type = 'CopyKept' AND data->>'requestId' = $1`, [unit.requestId]);
  const duplicates = await duplicateGroups(db, 'rm.adoptions', 'request_id, slot_id, source_resource_id, source_version');
  const copyDuplicates = await duplicateGroups(db, `rm.copy_versions WHERE origin = 'copy'`, 'adoption_id');
  const adoptions = await count(db, 'SELECT count(*) AS n FROM rm.adoptions');
  const problems = [
    ...(answers.every((a) => a.status === 200) ? [] : [`answers ${statuses(answers)}`]),
    ...(new Set(answers.map((a) => a.adoptionId)).size === 1 ? [] : ['racers were answered different adoptions']),
    ...(kept === 1 ? [] : [`${kept} CopyKept for one version`]),
    ...(duplicates === 0 ? [] : [`${duplicates} (request, slot, source, version) with several adoptions`]),
    ...(copyDuplicates === 0 ? [] : [`${copyDuplicates} adoptions with several kept versions`]),
  ];
  return row(
    'one adoption per kept version',
    problems,
    `${RACERS} concurrent keeps of one record: ${statuses(answers)}, ${kept} CopyKept; no duplicate among all ${adoptions} adoptions`,
  );
}

/** Correct is decided on the chain's head: of racers sending the same expectedOrgVersion to both instances, exactly one wins. */
async function oneCorrectWins(world: BenchWorld, instances: readonly ServiceClient[], unit: GrantedUnit): Promise<Row> {
  const slotId = world.org.slotIds[0]!;
  await keepOne(world.api, world.org, unit, slotId);
  const answers = await race(instances, {
    method: 'POST',
    path: `/org/v1/requests/${unit.requestId}/slots/${slotId}/correct`,
    token: world.org.memberToken,
    body: { sourceResourceId: unit.documentId, expectedSourceVersion: 1, expectedOrgVersion: 1, data: personName('Raced') },
  });
  const won = answers.filter((a) => a.status === 200).length;
  const lost = answers.filter((a) => a.status === 409 && a.code === 'version_conflict').length;
  const problems = won === 1 && lost === RACERS - 1 ? [] : [`answers ${statuses(answers)}`];
  return row('one winner per correct', problems, `${RACERS} concurrent corrects at orgVersion 1: ${statuses(answers)}`);
}

/** A proposal is decided once: one racer adopts it, the others are told it is no longer open, and its version is kept once. */
async function oneAdoptWins(world: BenchWorld, instances: readonly ServiceClient[], db: pg.Client, unit: GrantedUnit): Promise<Row> {
  const proposal = (await openProposals(world.api, world.org, [unit]))[0]?.[0];
  if (!proposal) throw new Error('no proposal opened');
  const answers = await race(instances, {
    method: 'POST',
    path: `/org/v1/requests/${unit.requestId}/proposals/${proposal.proposalId}/adopt`,
    token: world.org.memberToken,
  });
  const kept = await count(db, `SELECT count(*) AS n FROM es.events WHERE type = 'CopyKept' AND data->>'requestId' = $1`, [unit.requestId]);
  const won = answers.filter((a) => a.status === 200).length;
  const lost = answers.filter((a) => a.status === 409 && a.code === 'conflict').length;
  const problems = [
    ...(won === 1 && lost === RACERS - 1 ? [] : [`answers ${statuses(answers)}`]),
    ...(kept === 1 ? [] : [`${kept} CopyKept for one proposal`]),
  ];
  return row(
    'one winner per proposal adopt',
    problems,
    `${RACERS} concurrent adopts of one proposal: ${statuses(answers)}, ${kept} CopyKept`,
  );
}

/** Each read model row (or version) the events of a type make, counted on both sides. */
const PROJECTED: ReadonlyArray<{ readonly what: string; readonly events: readonly string[]; readonly rows: string }> = [
  { what: 'adoptions', events: ['CopyKept'], rows: `SELECT count(*) AS n FROM rm.adoptions WHERE state = 'materialized'` },
  { what: 'kept versions', events: ['CopyKept'], rows: `SELECT count(*) AS n FROM rm.copy_versions WHERE origin = 'copy'` },
  { what: 'corrections', events: ['CopyCorrected'], rows: `SELECT count(*) AS n FROM rm.copy_versions WHERE origin = 'correction'` },
  { what: 'proposals', events: ['ProposalOpened'], rows: 'SELECT count(*) AS n FROM rm.proposals' },
  { what: 'closed proposals', events: ['ProposalClosed'], rows: `SELECT count(*) AS n FROM rm.proposals WHERE state = 'closed'` },
  {
    what: 'document versions',
    events: ['DocumentCreated', 'DocumentUpdated'],
    rows: 'SELECT coalesce(sum(version), 0) AS n FROM rm.documents',
  },
  { what: 'requests', events: ['RequestSent'], rows: 'SELECT count(*) AS n FROM rm.requests' },
  { what: 'sessions', events: ['SessionStarted'], rows: 'SELECT count(*) AS n FROM rm.sessions' },
];

/** Every event applied exactly once by whichever instance wrote it: read-model counts equal event counts. */
async function projectedOnce(db: pg.Client): Promise<Row> {
  const problems: string[] = [];
  const matched: string[] = [];
  for (const p of PROJECTED) {
    const logged = await count(db, 'SELECT count(*) AS n FROM es.events WHERE type = ANY($1)', [p.events]);
    const projected = await count(db, p.rows);
    if (logged !== projected) problems.push(`${p.what}: ${logged} events, ${projected} in the read model`);
    else matched.push(`${p.what} ${logged}`);
  }
  return row('every event projected once', problems, `read models equal the log: ${matched.join(', ')}`);
}
