import { expect } from 'chai';
import fc from 'fast-check';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { allProjectors } from '../../src/projections/index.js';
import { replay } from '../../src/projections/replay.js';
import { mainBackend } from '../support/databases.js';
import { client, type Reply } from '../support/http.js';
import { RecordingMailer } from '../support/recording-mailer.js';
import { fileClient } from './files/file-client.js';
import { orgClient, type OrgClient } from './org/org-client.js';
import { startTestService, type TestService } from './support/service.js';

type GqlError = { message: string; extensions?: { code?: string } };
type User = { email: string; token: string };

const BASE = 'http://service.test/schemas/core';
/** Stands in the GraphQL body for a number literal JSON.stringify cannot write (1e400). */
const RAW_NUMBER = '"__raw_number__"';

// Inputs a client may send: mostly ordinary text, so that commands get far enough to append, and
// else every code point, the characters that have broken storage or mail before (NUL and other
// controls, lone surrogates, bidi controls, links) and long strings.
const specials = [
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0085',
  '\t',
  '\n',
  '\r',
  '\u2028',
  '\u202e',
  '\u2066',
  '\u200f',
  '\u061c',
  '\ud800',
  '\udfff',
  'https://evil.test/',
  ' ',
];
const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.string({ maxLength: 10 }), fc.constantFrom(...specials), fc.string({ maxLength: 10 })).map((p) => p.join('')),
  },
  { weight: 1, arbitrary: fc.string({ minLength: 190, maxLength: 260 }) },
);
const json = fc.jsonValue({ maxDepth: 4 });
const nested = fc.integer({ min: 1, max: 300 }).map((depth) => {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { k: value };
  return value;
});
const keyed = fc.dictionary(text, json, { maxKeys: 4 });
const rawNumber = fc.constantFrom('1e400', '-1e400', '1e-400', '123456789012345678901234567890', '-0', '0.1');
const digits = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 999_999_999 }));
const duration = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('P30D', 'PT1S', 'P100Y', 'P36500D', 'P101Y', 'P999999999Y', 'P0D', 'P') },
  { weight: 3, arbitrary: fc.tuple(digits, digits, digits, digits).map(([y, m, d, s]) => `P${y}Y${m}M${d}DT${s}S`) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('Y', 'M', 'W', 'D'), digits).map(([unit, n]) => `P${n}${unit}`) },
  { weight: 1, arbitrary: text },
);
const DAY = 86_400_000;
const timestamp = fc.oneof(
  fc.integer({ min: -10 * DAY, max: 100 * DAY }).map((ms) => new Date(Date.now() + ms).toISOString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '2026-13-01T00:00:00Z', 'tomorrow', ''),
  text,
);
const validSlot = {
  label: 'Name',
  group: 'Identity',
  subject: null,
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['keep'],
  adoption: 'manual',
};
const slot = fc.record({
  label: text,
  group: text,
  subject: fc.option(text),
  multiple: fc.boolean(),
  kind: fc.constantFrom('schema', 'file'),
  target: fc.oneof(fc.constantFrom('PersonFullName', 'PassportScan'), text),
  verbs: fc.constantFrom(['fill'], ['keep'], ['fill', 'edit', 'keep']),
  adoption: fc.constantFrom('manual', 'auto'),
});

/** One command a client may send, with the random parts of its input. */
const command = fc.oneof(
  fc.record({ kind: fc.constant('register' as const), displayName: text }),
  fc.record({
    kind: fc.constant('document' as const),
    name: text,
    description: fc.option(text),
    builtin: fc.boolean(),
    title: text,
    keys: keyed,
    data: fc.oneof(json, nested, keyed),
    number: rawNumber,
    update: fc.record({ name: fc.option(text), description: fc.option(text), data: fc.oneof(json, keyed) }),
  }),
  fc.record({ kind: fc.constant('entity' as const), name: text, email: text }),
  fc.record({ kind: fc.constant('member' as const), email: fc.oneof(text, fc.constant('m@example.com')) }),
  fc.record({ kind: fc.constant('app' as const), name: text, manifestName: text }),
  fc.record({ kind: fc.constant('file' as const), fileName: text, label: text }),
  {
    // The longest way to an event (organization, manifest, version, send, accept), so drawn more often.
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('invitation' as const),
      organization: text,
      manifest: text,
      retention: duration,
      slots: fc.oneof(
        { weight: 3, arbitrary: fc.constant([validSlot]) },
        { weight: 1, arbitrary: fc.array(slot, { minLength: 1, maxLength: 3 }) },
      ),
      nextRetention: duration,
      until: fc.option(timestamp, { freq: 3 }),
    }),
  },
);
type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

describe(`accepted input never stalls a read model (contract §9 limits; ${mainBackend})`, function () {
  this.timeout(300_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let ann: User;
  let acme: string;

  const gql = (token: string, query: string, variables: Record<string, unknown>, raw?: string) => {
    const body = JSON.stringify({ query, variables });
    return client(service.url).post('/graphql', raw === undefined ? body : body.replace(RAW_NUMBER, raw), token);
  };
  const idOf = (r: Reply, path: string[]): string | null => {
    let v: unknown = r.body.data;
    for (const p of path) v = (v as Record<string, unknown> | null | undefined)?.[p];
    return typeof v === 'string' ? v : null;
  };

  /** Sends one command the way a client would: every reply it got, to be judged. */
  async function run(c: Command): Promise<Reply[]> {
    switch (c.kind) {
      case 'register': {
        const user = await api.user({ register: false });
        return [
          await gql(user.token, 'mutation($input: RegisterInput!) { user { register(input: $input) { userId } } }', {
            input: { displayName: c.displayName },
          }),
        ];
      }
      case 'document': {
        const schema = c.builtin
          ? { schemaRef: `${BASE}/PersonFullName.json` }
          : {
              documentSchema: {
                title: c.title,
                properties: Object.fromEntries(Object.keys(c.keys).map((k) => [k, {}])),
                examples: [c.keys, RAW_NUMBER.slice(1, -1)],
              },
            };
        const data = c.builtin ? { givenName: c.name, familyName: c.title } : c.data;
        const created = await gql(
          ann.token,
          'mutation($input: DocumentInput!) { user { document { create(input: $input) { id version } } } }',
          { input: { name: c.name, description: c.description, data, ...schema } },
          c.number,
        );
        const id = idOf(created, ['user', 'document', 'create', 'id']);
        if (!id) return [created];
        const updateData = c.builtin ? { givenName: c.title } : c.update.data;
        return [
          created,
          await gql(
            ann.token,
            'mutation($id: ID!, $input: DocumentUpdateInput!) { user { document { update(id: $id, input: $input) { id version } } } }',
            { id, input: { ...c.update, data: updateData } },
          ),
        ];
      }
      case 'entity': {
        const created = await gql(ann.token, 'mutation($name: String!) { user { entity { create(name: $name) { entityId } } } }', {
          name: c.name,
        });
        const id = idOf(created, ['user', 'entity', 'create', 'entityId']);
        if (!id) return [created];
        return [
          created,
          await gql(
            ann.token,
            'mutation($id: ID!, $email: String!) { user { entity { ' +
              'setMember(entityId: $id, email: $email, role: MEMBER) { entityId } } } }',
            { id, email: c.email },
          ),
        ];
      }
      case 'member':
        // A URL cannot carry a lone surrogate at all.
        return [
          await api.put(`/org/v1/members/${encodeURIComponent(c.email.replace(/\p{Cs}/gu, '\uFFFD'))}`, acme, {
            permissions: ['request_read'],
          }),
        ];
      case 'app': {
        const app = await api.post('/org/v1/apps', acme, { name: c.name });
        const manifest = await api.post('/org/v1/manifests', acme, {
          name: c.manifestName,
          purpose: 'To check who you are',
          retention: 'P30D',
          slots: [validSlot],
        });
        if (app.status !== 201 || manifest.status !== 201) return [app, manifest];
        const opened = await gql(
          ann.token,
          'mutation($c: ID!, $m: ID!) { user { request { open(clientId: $c, manifestId: $m) { requestId } } } }',
          { c: app.body.clientId, m: (manifest.body.manifest as { manifestId: string }).manifestId },
        );
        return [app, manifest, opened];
      }
      case 'file':
        return [await fileClient(service.url).upload(ann.token, { fileName: c.fileName, label: c.label }, Buffer.from('x'))].map((r) => ({
          status: r.status,
          headers: r.headers,
          body: r.json,
        }));
      case 'invitation': {
        const created = await api.post('/org/v1/organizations', ann.token, { name: c.organization });
        if (created.status !== 201) return [created];
        const token = await api.signIn(ann.token, (created.body.organization as { organizationId: string }).organizationId);
        const manifest = await api.post('/org/v1/manifests', token, {
          name: c.manifest,
          purpose: 'To check who you are',
          retention: c.retention,
          slots: c.slots,
        });
        if (manifest.status !== 201) return [created, manifest];
        const { manifestId, slots } = manifest.body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
        const version = await api.post(`/org/v1/manifests/${manifestId}/versions`, token, {
          purpose: 'To check who you are',
          retention: c.nextRetention,
          slots: (c.slots as readonly object[]).map((s, i) => ({ ...s, slotId: slots[i]!.slotId })),
        });
        const sent = await api.post('/org/v1/requests', token, { manifestId, recipientEmail: ann.email, invitationExpiresAt: c.until });
        if (sent.status !== 201) return [created, manifest, version, sent];
        const requestId = (sent.body.request as { requestId: string }).requestId;
        const accepted = await gql(ann.token, 'mutation($r: ID!) { user { request { accept(requestId: $r, grants: []) { state } } } }', {
          r: requestId,
        });
        return [created, manifest, version, sent, accepted];
      }
    }
  }

  /** 2xx, or a 4xx problem with a code; a GraphQL answer carries no internal error. */
  function expectAnswered(r: Reply, c: Command): void {
    const aProblem = r.headers.get('content-type')?.includes('application/problem+json') && typeof r.body.code === 'string';
    const errors = (r.body.errors as GqlError[] | undefined) ?? [];
    const internal = errors.some((e) => typeof e.extensions?.code !== 'string' || e.extensions.code === 'INTERNAL_SERVER_ERROR');
    if (r.status < 400 ? !internal : r.status < 500 && aProblem) return;
    const logged = service
      .logs()
      .filter((l) => Number(l.level) >= 50)
      .map((l) => JSON.stringify(l));
    expect.fail(`${JSON.stringify(c)} answered ${r.status} ${JSON.stringify(r.body)}; errors logged:\n${logged.join('\n')}`);
  }

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    ann = await api.user();
    acme = await api.signIn(ann.token, await api.organization(ann.token));
  });
  after(() => service.close());

  it('random input to every command answers 2xx or a 4xx problem, and every read model applies every event; replay rebuilds them all', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 5 }), async (commands) => {
        for (const c of commands) for (const reply of await run(c)) expectAnswered(reply, c);
        const head = await service.store.headPosition();
        if (head) await service.engine.waitFor(head, { timeoutMs: 15_000 });
      }),
      { numRuns: 30, endOnFailure: true },
    );

    // The bare store: replay reads the log inside its own transaction only through a SqlEventStore.
    const report = await replay({ db: service.db, store: await SqlEventStore.open(service.db), projectors: allProjectors });
    expect(report.events).to.equal(report.total);
  });
});
