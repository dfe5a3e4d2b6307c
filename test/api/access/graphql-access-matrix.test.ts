import { expect } from 'chai';
import {
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
} from 'graphql';
import { schema } from '../../../src/api/graphql/graphql-route.js';
import { mainBackend } from '../../support/databases.js';
import type { Reply } from '../../support/http.js';
import { accessWorld, type AccessWorld, type Ids } from './access-world.js';
import { leaks } from './leaks.js';

type Gql = { data?: Record<string, unknown> | null; errors?: Array<{ message?: string; extensions?: { code?: string } }> };
/** One field that does the work (not a namespace such as user or user.document), as a client calls it. */
type Operation = {
  readonly name: string;
  readonly nullable: boolean;
  readonly document: string;
  readonly variables: (ids: Ids) => Record<string, unknown>;
};

const SCHEMA_BASE = 'http://service.test/schemas/core';
const NAME = { givenName: 'Quentin', familyName: 'Roe' };
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/**
 * The arguments of each field that takes some, from one side's ids. A field with arguments that
 * is missing here fails the matrix, so a new field cannot stay out of it.
 */
const argumentsOf: Readonly<Record<string, (ids: Ids) => Record<string, unknown>>> = {
  'UserQuery.document': (ids) => ({ id: ids.documentId }),
  'UserQuery.requestHistory': (ids) => ({ requestId: ids.requestId }),
  'UserQuery.consentReceipts': (ids) => ({ requestId: ids.requestId }),
  'UserMutation.register': () => ({ input: {} }),
  'DocumentMutation.create': (ids) => ({
    input: { name: 'Name', schemaRef: `${SCHEMA_BASE}/PersonFullName.json`, data: NAME, owner: ids.entityId },
  }),
  'DocumentMutation.validate': () => ({ input: { name: 'Name', schemaRef: `${SCHEMA_BASE}/PersonFullName.json`, data: NAME } }),
  'DocumentMutation.update': (ids) => ({ id: ids.documentId, input: { data: NAME } }),
  'DocumentMutation.delete': (ids) => ({ id: ids.documentId }),
  'SecurityMutation.revokeSession': (ids) => ({ sessionId: ids.sessionId }),
  'SecurityMutation.eraseAccount': () => ({ code: '000000' }),
  'EntityMutation.create': () => ({ name: 'Holding' }),
  'EntityMutation.setMember': (ids) => ({ entityId: ids.entityId, email: 'new.member@example.com', role: 'MEMBER' }),
  'EntityMutation.removeMember': (ids) => ({ entityId: ids.entityId, email: 'new.member@example.com' }),
  'RequestMutation.open': () => ({ clientId: UNKNOWN, manifestId: UNKNOWN }),
  'RequestMutation.accept': (ids) => ({ requestId: ids.requestId, grants: [{ slotId: ids.slotId, resourceIds: [ids.documentId] }] }),
  'RequestMutation.grant': (ids) => ({ requestId: ids.requestId, grant: { slotId: ids.slotId, resourceIds: [ids.documentId] } }),
  'RequestMutation.withdraw': (ids) => ({ requestId: ids.requestId, slotId: ids.slotId }),
  'RequestMutation.reject': (ids) => ({ requestId: ids.requestId }),
  'RequestMutation.revoke': (ids) => ({ requestId: ids.requestId }),
  'RequestMutation.suspend': (ids) => ({ requestId: ids.requestId }),
  'RequestMutation.resume': (ids) => ({ requestId: ids.requestId }),
};
/** Callable before user.register (contract 1). */
const BEFORE_REGISTER = new Set(['UserMutation.register', 'UserQuery.me']);

const isNamespace = (type: GraphQLOutputType) => /(Query|Mutation)$/.test(getNamedType(type).name) && isObjectType(getNamedType(type));

/** Every leaf of a type two levels deep: enough to see any data an answer would hand out. */
function selection(type: GraphQLOutputType, depth = 0): string {
  const named = getNamedType(type);
  if (isLeafType(named) || !isObjectType(named)) return '';
  const fields = Object.values(named.getFields())
    .filter((f) => f.args.length === 0 && (isLeafType(getNamedType(f.type)) || depth < 1))
    .map((f) => `${f.name} ${selection(f.type, depth + 1)}`);
  return `{ ${fields.join(' ')} }`;
}

/** Walks the executed schema from Query and Mutation through the namespaces to every operation field. */
function operations(): Operation[] {
  const walk = (root: 'query' | 'mutation', type: GraphQLObjectType, path: string[]): Operation[] =>
    Object.values(type.getFields()).flatMap((field: GraphQLField<unknown, unknown>) => {
      const named = getNamedType(field.type);
      if (isNamespace(field.type) && isObjectType(named)) return walk(root, named, [...path, field.name]);
      const name = `${type.name}.${field.name}`;
      const variables = argumentsOf[name];
      if (field.args.length > 0 && !variables) throw new Error(`${name} takes arguments: add them to the matrix's argumentsOf`);
      const defs = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
      const argList = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
      const call = `${field.name}${argList ? `(${argList})` : ''} ${selection(field.type)}`;
      const body = path.reduceRight((inner, outer) => `${outer} { ${inner} }`, call);
      return [
        {
          name,
          nullable: !isNonNullType(field.type),
          document: `${root}${defs ? `(${defs})` : ''} { ${body} }`,
          variables: variables ?? (() => ({})),
        },
      ];
    });
  const query = schema.getQueryType();
  const mutation = schema.getMutationType();
  if (!query || !mutation) throw new Error('the schema has no Query or Mutation');
  return [...walk('query', query, []), ...walk('mutation', mutation, [])];
}

describe(`access matrix: every GraphQL field × every kind of token (contract 1, 5, 8, 9; R-ACC-07 to R-ACC-10; ${mainBackend})`, function () {
  this.timeout(120_000);
  let world: AccessWorld;
  const ops = operations();

  before(async () => {
    world = await accessWorld();
  });
  after(() => world?.close());

  const call = (op: Operation, token: string | undefined, ids: Ids): Promise<Reply> =>
    world.api.post('/graphql', token, { query: op.document, variables: op.variables(ids) });
  const codeOf = (r: Reply) => (r.body as Gql).errors?.[0]?.extensions?.code;
  /** The field's own answer, under the namespaces; null when refused. */
  const answerOf = (op: Operation, r: Reply): string | null => {
    const data = (r.body as Gql).data;
    return data ? (JSON.stringify(data).match(new RegExp(`"${op.name.split('.')[1]}":(.*)`))?.[1] ?? null) : null;
  };
  const names = (list: readonly Operation[]) => list.map((o) => o.name);
  const namesIds = (op: Operation) =>
    JSON.stringify(op.variables(world.people.acme.ids)) !== JSON.stringify(op.variables(world.people.rival.ids));

  /** Runs each call and lists what differs from the refusal expected, leaks internals, or moved the log. */
  async function refused(
    cases: ReadonlyArray<{ op: Operation; label: string; token: string | undefined; ids: Ids }>,
    expected: (op: Operation, r: Reply) => string | null,
  ): Promise<string[]> {
    const wrong: string[] = [];
    for (const { op, label, token, ids } of cases) {
      const before = await world.head();
      const r = await call(op, token, ids);
      const where = `${op.name} with ${label}`;
      const mismatch = expected(op, r);
      if (mismatch) wrong.push(`${where}: ${mismatch}`);
      const leak = leaks(r.body);
      if (leak) wrong.push(`${where}: the body shows ${leak}`);
      const caused = await world.appendedBy(before, r.headers.get('x-request-id'));
      if (caused.length > 0) wrong.push(`${where}: the refused call appended ${caused.join(', ')} to the log`);
    }
    return wrong;
  }
  const graphqlError =
    (code: string) =>
    (op: Operation, r: Reply): string | null => {
      if (r.status !== 200 || codeOf(r) !== code) return `${r.status} ${String(codeOf(r))} ${JSON.stringify(r.body).slice(0, 200)}`;
      const answer = answerOf(op, r);
      return answer === null || answer.startsWith('null') ? null : `data beside the error: ${answer.slice(0, 200)}`;
    };

  it('the walk reaches every field of the person’s side', function () {
    expect(names(ops)).to.include.members([
      'UserQuery.me',
      'UserQuery.requestHistory',
      'DocumentMutation.delete',
      'RequestMutation.resume',
    ]);
    expect(ops.length).to.be.greaterThan(25);
  });

  it('a missing, malformed, forged, expired, revoked or member token on any field is HTTP 401 problem+json unauthenticated, writing nothing', async function () {
    const cases = ops.flatMap((op) => world.refusedUser.map((t) => ({ op, label: t.name, token: t.token, ids: world.people.acme.ids })));
    const wrong = await refused(cases, (_op, r) =>
      r.status === 401 && r.body.code === 'unauthenticated' && /^application\/problem\+json/.test(r.headers.get('content-type') ?? '')
        ? null
        : `${r.status} ${String(r.body.code)} ${r.headers.get('content-type')}`,
    );
    expect(wrong).to.deep.equal([]);
  });

  it('before user.register every field but register and me is FORBIDDEN, writing nothing', async function () {
    const cases = ops
      .filter((op) => !BEFORE_REGISTER.has(op.name))
      .map((op) => ({ op, label: 'an unregistered user', token: world.unregistered, ids: world.people.acme.ids }));
    expect(await refused(cases, graphqlError('FORBIDDEN'))).to.deep.equal([]);
  });

  it("another user's ids, or a legal entity's to one removed from it, are NOT_FOUND on every field naming one, as unknown ids, never data, writing nothing", async function () {
    const naming = ops.filter(namesIds);
    expect(names(naming)).to.include.members(['UserQuery.requestHistory', 'DocumentMutation.update', 'RequestMutation.accept']);
    const strangers = [
      { label: "Pat's ids by Rival's founder", token: world.rival.user, victim: world.people.acme.ids },
      { label: "the legal entity's ids by Rival's founder", token: world.rival.user, victim: world.acme.ids },
      { label: "the legal entity's ids by a manager removed from it", token: world.removedFromEntity, victim: world.acme.ids },
    ];
    const wrong = await refused(
      strangers.flatMap(({ label, token, victim }) => naming.map((op) => ({ op, label, token, ids: victim }))),
      (op, r) => {
        const fault = graphqlError('NOT_FOUND')(op, r);
        // A nullable lookup may say "not found" as null, provided an unknown id answers the same (checked below).
        return fault && op.nullable && !r.body.errors && answerOf(op, r)?.startsWith('null') ? null : fault;
      },
    );
    expect(wrong).to.deep.equal([]);
    const unknown = Object.fromEntries(Object.keys(world.acme.ids).map((k) => [k, UNKNOWN])) as Ids;
    for (const { label, token, victim } of strangers) {
      for (const op of naming) {
        const theirs = await call(op, token, victim);
        const none = await call(op, token, unknown);
        expect([codeOf(theirs), answerOf(op, theirs)], `${op.name}: ${label}`).to.deep.equal([codeOf(none), answerOf(op, none)]);
      }
    }
  });

  it("a MEMBER of a legal entity is FORBIDDEN on every field changing the entity's documents or members, writing nothing", async function () {
    const entityIds = { ...world.acme.ids, entityId: UNKNOWN, documentId: UNKNOWN };
    const changing = ops.filter(
      (op) =>
        op.document.startsWith('mutation') &&
        !('requestId' in op.variables(world.acme.ids)) &&
        JSON.stringify(op.variables(world.acme.ids)) !== JSON.stringify(op.variables(entityIds)),
    );
    expect(names(changing)).to.include.members(['DocumentMutation.create', 'DocumentMutation.delete', 'EntityMutation.setMember']);
    const cases = changing.map((op) => ({ op, label: 'a MEMBER of the entity', token: world.entityMember, ids: world.acme.ids }));
    expect(await refused(cases, graphqlError('FORBIDDEN'))).to.deep.equal([]);
  });

  it("another person's resource granted on one's own request is NOT_FOUND, writing nothing", async function () {
    const own = world.people.rival;
    const mixed = { ...own.ids, documentId: world.people.acme.ids.documentId, fileId: world.people.acme.ids.fileId };
    const granting = ops.filter((op) => JSON.stringify(op.variables(mixed)) !== JSON.stringify(op.variables(own.ids)));
    expect(names(granting)).to.include.members(['RequestMutation.grant', 'RequestMutation.accept']);
    const onRequests = granting.filter((op) => op.name.startsWith('RequestMutation.'));
    const cases = onRequests.map((op) => ({ op, label: "Rae granting Pat's document", token: own.token, ids: mixed }));
    // accept needs a pending request: Rae's is active, so accept may refuse with CONFLICT first; grant must say NOT_FOUND.
    const wrong = await refused(cases, (op, r) =>
      op.name === 'RequestMutation.accept' && codeOf(r) === 'CONFLICT' ? null : graphqlError('NOT_FOUND')(op, r),
    );
    expect(wrong).to.deep.equal([]);
  });

  it('what another user, or one removed from a legal entity, reads through fields naming no id holds none of their ids', async function () {
    const reads = ops.filter((op) => !namesIds(op) && op.document.startsWith('query'));
    expect(names(reads)).to.include.members(['UserQuery.me', 'UserQuery.documents', 'UserQuery.requests', 'UserQuery.entities']);
    const pat = world.people.acme;
    const readers = [
      {
        token: world.rival.user,
        secrets: [pat.ids.documentId, pat.ids.fileId, pat.ids.entityId, pat.ids.sessionId, pat.ids.requestId, pat.email],
      },
      { token: world.removedFromEntity, secrets: [world.acme.ids.entityId, world.acme.ids.documentId, world.acme.ids.fileId] },
    ];
    for (const { token, secrets } of readers) {
      for (const op of reads) {
        const r = await call(op, token, world.rival.ids);
        expect(r.body.errors, `${op.name}: ${JSON.stringify(r.body)}`).to.equal(undefined);
        const body = JSON.stringify(r.body);
        expect(
          secrets.filter((secret) => body.includes(secret)),
          op.name,
        ).to.deep.equal([]);
      }
    }
  });
});
