import {
  copyHead,
  createDocument,
  grantedUnit,
  grantedUnits,
  keepOne,
  openProposals,
  PerConnection,
  personName,
  SETUP_CONCURRENCY,
  SLOTS,
  UPDATE_DOCUMENT,
  type GrantedUnit,
  type Organization,
  type Person,
} from './command-data.js';
import type { Call, Script } from './load.js';
import type { BenchWorkload } from './selection.js';
import { inParallel, type ServiceClient } from './service-client.js';

/** What the workloads share: a client of the first instance for setup, the organization and each connection's person. */
export type BenchWorld = {
  readonly api: ServiceClient;
  readonly org: Organization;
  readonly people: PerConnection<Person>;
};

/** One measured operation. */
export type Workload = {
  readonly section: 'commands' | 'identity';
  /** What BENCH_WORKLOADS calls it. */
  readonly key: BenchWorkload;
  readonly name: string;
  /**
   * The event each 2xx answer appends exactly once: counting it before and after a run shows that
   * no call was a no-op and none was done twice. Null for a read.
   */
  readonly event: string | null;
  /** Whether each request uses up a prepared record (keep, adopt, login): a trial then sizes the run's records. */
  readonly consumes: boolean;
  /**
   * The kind of token its calls carry: a command's floor is the authenticated no-op read of the same
   * kind, which pays the same signature, session and membership checks and nothing else.
   */
  readonly token?: TokenKind;
  /** A floor row itself (floorWorkloads), which the commands of its kind of token are measured against. */
  readonly floor?: true;
  /** One script per connection, each good for `requests` requests. */
  scripts(clients: number, requests: number): Promise<Script[]>;
  /** After a run: brings what the scripts remember in line with the service (requests were in flight at the stop). */
  settle?(): Promise<void>;
};

/** A connection sending its calls in order (the run stops it after the last: `perConnection`). */
function walk(calls: readonly Call[]): Script {
  let i = 0;
  return { next: () => calls[Math.min(i++, calls.length - 1)]! };
}

const repeat = (call: Call): Script => ({ next: () => call });

export type TokenKind = 'organization' | 'user';

export function commandWorkloads(world: BenchWorld): Workload[] {
  return [publish(world), keep(world), correct(world), proposalAdopt(world)];
}

/** The organization token's floor row: run.ts sets the bare keeps (limits.ts) beside it. */
export const FLOOR_ORG_ROW = 'floor: organization token REST read (GET /org/v1/key)';

/**
 * Issue 48's floor: the cheapest authenticated calls, one per kind of token. Each pays what every
 * command of its kind must (the EdDSA signature, the session row, for a member the membership) and
 * reads one row; a command's share of it is what its own work costs.
 */
export function floorWorkloads({ org, people }: BenchWorld): Workload[] {
  return [
    {
      section: 'commands',
      key: 'floor-org',
      name: FLOOR_ORG_ROW,
      event: null,
      consumes: false,
      token: 'organization',
      floor: true,
      scripts: async (clients) =>
        Array.from({ length: clients }, () => repeat({ method: 'GET', path: '/org/v1/key', token: org.memberToken })),
    },
    {
      section: 'commands',
      key: 'floor-user',
      name: 'floor: user token GraphQL read (user.me)',
      event: null,
      consumes: false,
      token: 'user',
      floor: true,
      scripts: async (clients) =>
        (await people.first(clients)).map((p) =>
          repeat({ method: 'POST', path: '/graphql', token: p.token, body: { query: '{ user { me { userId } } }' } }),
        ),
    },
  ];
}

export function identityWorkloads(world: BenchWorld): Workload[] {
  return [logins(world), tokenChecks(world)];
}

/** Each connection's person updates their own document, not granted anywhere: version n+1 each call. */
function publish({ api, org, people }: BenchWorld): Workload {
  const documents = new PerConnection(async (i) => {
    const person = (await people.first(i + 1))[i]!;
    return { person, documentId: await createDocument(api, org, person, 'Published') };
  });
  return {
    section: 'commands',
    key: 'publish',
    name: 'document publish (GraphQL)',
    event: 'DocumentUpdated',
    consumes: false,
    token: 'user',
    async scripts(clients) {
      await people.first(clients); // all at once, before each document asks for its own
      return (await documents.first(clients)).map(({ person, documentId }) => {
        let n = 0;
        return {
          next: () => ({
            method: 'POST',
            path: '/graphql',
            token: person.token,
            body: { query: UPDATE_DOCUMENT, variables: { id: documentId, i: { data: personName(`Published ${++n}`) } } },
          }),
        };
      });
    },
  };
}

/** The keep row's name: run.ts sets it beside the bare keep (limits.ts). */
export const KEEP_ROW = 'keep';

/** Each call keeps a record not kept before: the next slot of the connection's own requests, each granted a document of its person. */
function keep({ api, org, people }: BenchWorld): Workload {
  return {
    section: 'commands',
    key: 'keep',
    name: KEEP_ROW,
    event: 'CopyKept',
    consumes: true,
    token: 'organization',
    async scripts(clients, requests) {
      const units = await grantedUnits(api, org, await people.first(clients), Math.ceil(requests / SLOTS));
      return units.map((mine) =>
        walk(
          mine.flatMap((u) =>
            org.slotIds.map((slotId): Call => ({
              method: 'POST',
              path: `/org/v1/requests/${u.requestId}/slots/${slotId}/adopt`,
              token: org.memberToken,
            })),
          ),
        ),
      );
    },
  };
}

type Chain = { readonly unit: GrantedUnit; readonly slotId: string; head: number };

/** Each connection corrects its own kept copy, always at its current head: a new version each call, no conflict. */
function correct({ api, org, people }: BenchWorld): Workload {
  const chains = new PerConnection(async (i): Promise<Chain> => {
    const person = (await people.first(i + 1))[i]!;
    const unit = await grantedUnit(api, org, person);
    const slotId = org.slotIds[0]!;
    await keepOne(api, org, unit, slotId);
    return { unit, slotId, head: 1 };
  });
  return {
    section: 'commands',
    key: 'correct',
    name: 'correct',
    event: 'CopyCorrected',
    consumes: false,
    token: 'organization',
    async scripts(clients) {
      await people.first(clients); // all at once, before each chain asks for its own
      return (await chains.first(clients)).map((chain) => ({
        next: () => ({
          method: 'POST',
          path: `/org/v1/requests/${chain.unit.requestId}/slots/${chain.slotId}/correct`,
          token: org.memberToken,
          body: {
            sourceResourceId: chain.unit.documentId,
            expectedSourceVersion: 1,
            expectedOrgVersion: chain.head,
            data: personName(`Corrected ${chain.head}`),
          },
        }),
        answered: (status, body) => {
          if (status === 200) chain.head = (JSON.parse(body) as { orgVersion: number }).orgVersion;
        },
      }));
    },
    // A correct in flight at the stop was done without the script reading its answer.
    async settle() {
      await inParallel(chains.all(), SETUP_CONCURRENCY, async (c) => {
        c.head = await copyHead(api, org, c.unit, c.slotId);
      });
    },
  };
}

/** Each call adopts another open proposal: the connection's requests, whose document the person published again. */
function proposalAdopt({ api, org, people }: BenchWorld): Workload {
  return {
    section: 'commands',
    key: 'adopt',
    name: 'proposal adopt',
    event: 'CopyKept',
    consumes: true,
    token: 'organization',
    async scripts(clients, requests) {
      const perPerson = Math.ceil(requests / SLOTS);
      const units = await grantedUnits(api, org, await people.first(clients), perPerson);
      const proposals = await openProposals(api, org, units.flat());
      return units.map((_, p) =>
        walk(
          proposals
            .slice(p * perPerson, (p + 1) * perPerson)
            .flat()
            .map((o): Call => ({
              method: 'POST',
              path: `/org/v1/requests/${o.requestId}/proposals/${o.proposalId}/adopt`,
              token: org.memberToken,
            })),
        ),
      );
    },
  };
}

/** verify-otp only: the codes were sent (and read from the mail sink) beforehand, one fresh address each. */
function logins({ api }: BenchWorld): Workload {
  return {
    section: 'identity',
    key: 'logins',
    name: 'verify-otp logins (codes sent beforehand)',
    event: 'SessionStarted',
    consumes: true,
    async scripts(clients, requests) {
      const codes = await inParallel(Array.from({ length: clients * requests }), SETUP_CONCURRENCY, () => api.mailCode());
      return Array.from({ length: clients }, (_, c) =>
        walk(
          codes
            .slice(c * requests, (c + 1) * requests)
            .map(({ email, code }): Call => ({ method: 'POST', path: '/auth/verify-otp', body: { email, code } })),
        ),
      );
    },
  };
}

/** The cheapest authenticated call: token signature, session row, one field. */
function tokenChecks({ people }: BenchWorld): Workload {
  return {
    section: 'identity',
    key: 'token-checks',
    name: 'token checks (GraphQL user.me)',
    event: null,
    consumes: false,
    async scripts(clients) {
      return (await people.first(clients)).map((p) =>
        repeat({ method: 'POST', path: '/graphql', token: p.token, body: { query: '{ user { me { userId } } }' } }),
      );
    },
  };
}
