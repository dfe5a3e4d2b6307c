import { MANUAL_NAME_SLOT } from '../support/consent-scenario.js';
import { expect } from 'chai';
import fc from 'fast-check';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { schema } from '../../../src/api/graphql/graphql-route.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { fileClient } from '../files/file-client.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { deepArrays, hostileText, jsonText, Pairs, Raw, shaped, type Known, type Schema } from '../support/hostile-values.js';
import { briefly, FUZZ_RUNS, refused, rowCounter, verdict } from '../support/hostile-verdict.js';
import { sendRaw } from '../support/raw-http.js';
import { startTestService, type TestService } from '../support/service.js';

/** A field that takes arguments, with the path of fields that leads to it from its operation's root. */
type Target = {
  readonly operation: 'query' | 'mutation';
  readonly path: readonly string[];
  readonly field: GraphQLField<unknown, unknown>;
};

function targets(operation: 'query' | 'mutation', type: GraphQLObjectType, path: readonly string[] = []): Target[] {
  return Object.values(type.getFields()).flatMap((field) => {
    const here = [...path, field.name];
    const own = field.args.length ? [{ operation, path: here, field }] : [];
    const named = getNamedType(field.type);
    // Only argument-free fields lead further: the namespaces (user, document, entity…).
    return field.args.length === 0 && isObjectType(named) ? [...own, ...targets(operation, named, here)] : own;
  });
}

const ALL: Target[] = [...targets('query', schema.getQueryType()!), ...targets('mutation', schema.getMutationType()!)];

/** A GraphQL input type as the JSON schema the value arbitraries read. */
function schemaOf(type: GraphQLInputType): Schema {
  const inner = getNullableType(type);
  if (isListType(inner)) return { type: 'array', items: schemaOf(inner.ofType) };
  if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields());
    return {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f.name, schemaOf(f.type)])),
      required: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name),
    };
  }
  if (isEnumType(inner)) return { enum: inner.getValues().map((v) => v.name) };
  switch (inner.name) {
    case 'Int':
      return { type: 'integer' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'JSON':
      return {};
    default:
      return { type: 'string', maxLength: 30 };
  }
}

/** The operation calling the target with one variable per argument, selecting as little as it may. */
function documentOf(t: Target): string {
  const named = getNamedType(t.field.type);
  const selection = isLeafType(named) ? '' : ' { __typename }';
  const declared = t.field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const call = `${t.field.name}(${t.field.args.map((a) => `${a.name}: $${a.name}`).join(', ')})${selection}`;
  const body = [...t.path.slice(0, -1)].reverse().reduce((inner, name) => `${name} { ${inner} }`, call);
  return `${t.operation} Fuzz(${declared}) { ${body} }`;
}

const A = '{ __typename }';
/** Documents no client should send; each must be refused (or answered) without internals. */
const hostileDocuments: ReadonlyArray<readonly [string, string]> = [
  ['aliases flood', `{ user { ${Array.from({ length: 5000 }, (_, i) => `a${i}: __typename`).join(' ')} } }`],
  ['deep selections', `{ user ${'{ me '.repeat(40)}{ email }${' }'.repeat(40)} }`],
  ['fragment cycle', '{ user { ...A } } fragment A on UserQuery { ...B } fragment B on UserQuery { ...A }'],
  ['unknown fragment', '{ user { ...Nope } }'],
  ['introspection', '{ __schema { types { name fields { name args { name type { name ofType { name ofType { name } } } } } } } }'],
  ['deep list literal', `{ user { document(id: ${'['.repeat(5000)}1${']'.repeat(5000)}) ${A} } }`],
  ['huge string literal', `{ user { document(id: "${'x'.repeat(900_000)}") ${A} } }`],
  ['subscription', 'subscription { user { me { email } } }'],
  ['two operations, none named', '{ user { me { email } } } query B { user { me { email } } }'],
  ['directives flood', `{ user ${'@skip(if: false) '.repeat(3000)}{ me { email } } }`],
  ['mutation flood', `mutation { user { ${Array.from({ length: 300 }, (_, i) => `r${i}: register(input: {}) { userId }`).join(' ')} } }`],
  ['syntax error', '{ user { '],
  ['empty', ''],
  ['control characters', '{ user\u0000 { me { email } } }'],
];

/** Bodies that are JSON but not a GraphQL request. */
const hostileRequests: ReadonlyArray<readonly [string, string]> = [
  ['a batch', JSON.stringify([{ query: '{ user { me { email } } }' }, { query: '{ user { me { email } } }' }])],
  ['query a number', jsonText({ query: new Raw('1e309') })],
  ['variables a string', JSON.stringify({ query: '{ user { me { email } } }', variables: '{"a":1}' })],
  ['variables a list', JSON.stringify({ query: '{ user { me { email } } }', variables: [1] })],
  ['variables deep', jsonText({ query: '{ user { me { email } } }', variables: { a: deepArrays } })],
  ['operationName unknown', JSON.stringify({ query: '{ user { me { email } } }', operationName: 'Nope' })],
  ['operationName an object', JSON.stringify({ query: '{ user { me { email } } }', operationName: {} })],
  ['extensions a list', JSON.stringify({ query: '{ user { me { email } } }', extensions: [] })],
  [
    'query twice',
    jsonText(
      new Pairs([
        ['query', '{ user { me { email } } }'],
        ['query', 'mutation { user { register(input: {}) { userId } } }'],
      ]),
    ),
  ],
  ['__proto__ variables', '{"query":"query($id: ID!) { user { document(id: $id) { id } } }","variables":{"__proto__":{"id":"x"}}}'],
];

describe(`hostile GraphQL variables and documents never fail the service (contract §5, §9; ${mainBackend})`, function () {
  this.timeout(600_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let member: string;
  let manifestId: string;
  let slotIds: string[];
  let clientId: string;
  let rows: () => Promise<Record<string, number>>;
  /** Fields some fuzzed call ran to the end on: the fuzz reaches the resolvers, not only the checks. */
  const answered = new Set<string>();

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    member = await api.signIn(owner.token, await api.organization(owner.token));
    const slot = { ...MANUAL_NAME_SLOT, group: 'Id' };
    const manifest = await api.post('/org/v1/manifests', member, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [slot],
    });
    const created = manifest.body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    manifestId = created.manifestId;
    slotIds = created.slots.map((s) => s.slotId);
    clientId = String((await api.post('/org/v1/apps', member, { name: 'App' })).body.clientId);
    rows = await rowCounter(service.db);
  });
  after(() => service?.close());

  const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
    (await api.post('/graphql', token, { query, variables })).body as { data?: Record<string, any>; errors?: unknown[] };

  /**
   * A person of their own for each field, as some end their sessions or erase their account: with
   * a document, a legal entity and a request addressed to them, so ids the fuzz draws exist.
   */
  async function person(): Promise<{ token: string; known: Known }> {
    const p = await api.user();
    const doc = await gql(p.token, 'mutation($i: DocumentInput!) { user { document { create(input: $i) { id } } } }', {
      i: { name: 'Name', schemaRef: 'http://service.test/schemas/core/PersonFullName.json', data: { givenName: 'A', familyName: 'B' } },
    });
    const entity = await gql(p.token, 'mutation { user { entity { create(name: "Acme") { entityId } } } }');
    const sent = await api.post('/org/v1/requests', member, { manifestId, recipientEmail: p.email });
    const sessions = await gql(p.token, '{ user { me { sessions { sessionId } } } }');
    const file = await fileClient(service.url).upload(p.token, { fileName: 'a.txt' }, Buffer.from('a'));
    const ids = {
      id: [doc.data?.user.document.create.id, file.json.fileId],
      entityId: [entity.data?.user.entity.create.entityId],
      requestId: [(sent.body.request as { requestId: string }).requestId],
      slotId: slotIds,
      resourceIds: [doc.data?.user.document.create.id],
      manifestId: [manifestId],
      clientId: [clientId],
      sessionId: (sessions.data?.user.me.sessions as Array<{ sessionId: string }>).map((s) => s.sessionId),
      email: [p.email, 'someone@example.com'],
    };
    for (const [name, values] of Object.entries(ids))
      expect(
        values.every((v) => typeof v === 'string'),
        name,
      ).to.equal(true);
    return { token: p.token, known: ids };
  }

  async function judged(token: string, body: Buffer, what: string): Promise<boolean> {
    const before = await rows();
    const request = {
      method: 'POST',
      target: Buffer.from('/graphql'),
      headers: [
        ['Authorization', Buffer.from(`Bearer ${token}`)],
        ['Content-Type', Buffer.from('application/json')],
      ] as Array<[string, Buffer]>,
      body,
    };
    const reply = await sendRaw(service.url, request);
    const wrong = verdict(reply, body.toString('utf8'), 'graphql');
    const line = service.logs().find((l) => l.requestId === reply.headers['x-request-id'] && Number(l.level) >= 50);
    const logged = line ? `\nlogged: ${JSON.stringify(line.err ?? line).slice(0, 1500)}` : '';
    if (wrong)
      expect.fail(`${wrong}: ${reply.status} ${reply.text.slice(0, 500)}\nfor ${what}: ${body.toString('utf8').slice(0, 400)}${logged}`);
    if (!refused(reply)) return true;
    expect(await rows(), `rows after a refused ${what}: ${body.toString('utf8').slice(0, 400)}`).to.deep.equal(before);
    return false;
  }

  it('walks every field with arguments, through the namespaces, on both roots', () => {
    const names = ALL.map((t) => t.path.join('.'));
    expect(names).to.include.members(['user.document', 'user.document.create', 'user.request.accept', 'user.entity.setMember']);
    expect(names.filter((n) => n.startsWith('user.security.'))).to.have.length.above(0);
  });

  for (const target of ALL) {
    const document = documentOf(target);
    it(`${target.operation} ${target.path.join('.')}: hostile variables answer < 500 with coded errors and no internals, and a refusal writes nothing`, async () => {
      const { token, known } = await person();
      const variables = fc.record(
        Object.fromEntries(
          target.field.args.map((a) => [a.name, fc.option(shaped(schemaOf(a.type), known, a.name), { freq: 12, nil: undefined })]),
        ),
      );
      const extra = fc.option(fc.tuple(hostileText, fc.jsonValue({ maxDepth: 1 })), { freq: 5, nil: undefined });
      await fc.assert(
        fc.asyncProperty(variables, extra, async (values, more) => {
          const vars = more ? { ...values, [more[0]]: more[1] } : values;
          const body = Buffer.from(jsonText({ query: document, variables: vars, operationName: 'Fuzz' }), 'utf8');
          if (await judged(token, body, document)) answered.add(target.path.join('.'));
        }),
        { numRuns: FUZZ_RUNS, endOnFailure: true, reporter: briefly },
      );
    });
  }

  it('documents that attack the parser or the limits, and bodies that are not GraphQL requests, are refused with a code and write nothing', async () => {
    const { token } = await person();
    for (const [what, query] of hostileDocuments) await judged(token, Buffer.from(JSON.stringify({ query }), 'utf8'), what);
    for (const [what, body] of hostileRequests) await judged(token, Buffer.from(body, 'utf8'), what);
  });

  it('got past the variable checks: a good part of the fields ran to the end on some fuzzed call', () => {
    expect(answered.size, [...answered].join(', ')).to.be.at.least(ALL.length / 3);
  });
});
