import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { driver, type Gql, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

type Member = { email: string; role: string };
type Entity = { entityId: string; name: string; role: string; members: Member[] };

const ENTITY = 'entityId name role members { email role }';
const CREATE_ENTITY = `mutation($name: String!) { user { entity { create(name: $name) { ${ENTITY} } } } }`;
const SET_MEMBER = `mutation($entityId: ID!, $email: String!, $role: EntityRole!) {
  user { entity { setMember(entityId: $entityId, email: $email, role: $role) { ${ENTITY} } } } }`;
const REMOVE_MEMBER = `mutation($entityId: ID!, $email: String!) {
  user { entity { removeMember(entityId: $entityId, email: $email) { ${ENTITY} } } } }`;
const ENTITIES = `{ user { entities { ${ENTITY} } } }`;

const CREATE_DOC = `mutation($input: DocumentInput!) { user { document { create(input: $input) { id version } } } }`;
const UPDATE_DOC = `mutation($id: ID!, $input: DocumentUpdateInput!) {
  user { document { update(id: $id, input: $input) { id version } } } }`;
const DELETE_DOC = `mutation($id: ID!) { user { document { delete(id: $id) } } }`;
const DOCUMENTS = `{ user { documents { id owner data } } }`;
const DOCUMENT = `query($id: ID!) { user { document(id: $id) { id owner version data } } }`;

const registration = { registeredNumber: 'HRB 12345' };
const docInput = (owner: string | null, data: unknown = registration) => ({
  name: 'Registration',
  documentSchema: { type: 'object' },
  data,
  ...(owner ? { owner } : {}),
});

describe(`legal entities (contract 5 EntityMutation, issue 6 "Entity roles"; ${mainBackend})`, function () {
  this.timeout(60_000);
  let service: TestService;
  const mailer = new RecordingMailer();
  let api: OrgClient;
  const { gql, ok, errorOf } = driver({ api: () => api });

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
  });
  after(() => service.close());

  const address = () => `e${randomBytes(4).toString('hex')}@example.com`;
  const login = (email: string, register = true): Promise<User> => api.user({ email, register });
  const user = () => login(address());
  const createEntity = async (u: User, name = 'Acme GmbH'): Promise<Entity> => ok(await gql(u, CREATE_ENTITY, { name })).user.entity.create;
  const setMember = (u: User, entityId: string, email: string, role: string) => gql(u, SET_MEMBER, { entityId, email, role });
  const removeMember = (u: User, entityId: string, email: string) => gql(u, REMOVE_MEMBER, { entityId, email });
  const entities = async (u: User): Promise<Entity[]> => ok(await gql(u, ENTITIES)).user.entities;
  const createDoc = (u: User, owner: string | null) => gql(u, CREATE_DOC, { input: docInput(owner) });
  const docIds = async (u: User): Promise<string[]> =>
    (ok(await gql(u, DOCUMENTS)).user.documents as Array<{ id: string }>).map((d) => d.id);
  const doc = async (u: User, id: string) =>
    ok(await gql(u, DOCUMENT, { id })).user.document as { id: string; owner: string | null; version: number } | null;
  const sorted = (members: Member[]) => [...members].sort((a, b) => (a.email < b.email ? -1 : 1));

  it('create makes the caller MANAGER; the name is kept trimmed', async () => {
    const ann = await user();
    const e = await createEntity(ann, '  Acme GmbH ');
    expect(e).to.deep.equal({ entityId: e.entityId, name: 'Acme GmbH', role: 'MANAGER', members: [{ email: ann.email, role: 'MANAGER' }] });
    expect(await entities(ann)).to.deep.equal([e]);
  });

  it('a blank name is BAD_USER_INPUT', async () => {
    const ann = await user();
    expect(errorOf(await gql(ann, CREATE_ENTITY, { name: '   ' })).extensions.code).to.equal('BAD_USER_INPUT');
  });

  it("entities lists only the caller's entities, each with the caller's role and every member", async () => {
    const [ann, bob, cem] = [await user(), await user(), await user()];
    const acme = await createEntity(ann, 'Acme');
    const bobCo = await createEntity(bob, 'Bob & Co');
    ok(await setMember(ann, acme.entityId, bob.email, 'MEMBER'));

    const members = sorted([
      { email: ann.email, role: 'MANAGER' },
      { email: bob.email, role: 'MEMBER' },
    ]);
    expect(await entities(bob)).to.deep.equal([
      { entityId: acme.entityId, name: 'Acme', role: 'MEMBER', members },
      { entityId: bobCo.entityId, name: 'Bob & Co', role: 'MANAGER', members: [{ email: bob.email, role: 'MANAGER' }] },
    ]);
    expect(await entities(ann)).to.deep.equal([{ entityId: acme.entityId, name: 'Acme', role: 'MANAGER', members }]);
    expect(await entities(cem)).to.deep.equal([]);
  });

  it('setMember takes an address with no account yet (normalized); it holds once that person logs in', async () => {
    const ann = await user();
    const acme = await createEntity(ann);
    const dana = address();
    const answered = ok(await setMember(ann, acme.entityId, `  ${dana.toUpperCase()} `, 'MEMBER')).user.entity.setMember as Entity;
    expect(answered.role).to.equal('MANAGER');
    expect(sorted(answered.members)).to.deep.equal(
      sorted([
        { email: ann.email, role: 'MANAGER' },
        { email: dana, role: 'MEMBER' },
      ]),
    );
    const id = ok(await createDoc(ann, acme.entityId)).user.document.create.id as string;

    const danaUser = await login(dana);
    expect((await entities(danaUser)).map((e) => [e.entityId, e.role])).to.deep.equal([[acme.entityId, 'MEMBER']]);
    expect(await doc(danaUser, id)).to.deep.include({ id, owner: acme.entityId, version: 1 });
  });

  it('setMember refuses what is not an address: BAD_USER_INPUT', async () => {
    const ann = await user();
    const acme = await createEntity(ann);
    expect(errorOf(await setMember(ann, acme.entityId, 'not an address', 'MEMBER')).extensions.code).to.equal('BAD_USER_INPUT');
  });

  it('a role change takes effect on the next request; the same role again changes nothing', async () => {
    const [ann, bob] = [await user(), await user()];
    const acme = await createEntity(ann);
    ok(await setMember(ann, acme.entityId, bob.email, 'MEMBER'));
    expect(errorOf(await createDoc(bob, acme.entityId)).extensions.code).to.equal('FORBIDDEN');
    ok(await setMember(ann, acme.entityId, bob.email, 'MANAGER'));
    expect(ok(await createDoc(bob, acme.entityId)).user.document.create.version).to.equal(1);
    const again = ok(await setMember(ann, acme.entityId, bob.email, 'MANAGER')).user.entity.setMember as Entity;
    expect(again.members).to.deep.include({ email: bob.email, role: 'MANAGER' });
  });

  it("a MEMBER reads the entity's documents but cannot write them (create with owner, update, delete) nor change members", async () => {
    const [ann, bob, cem] = [await user(), await user(), await user()];
    const acme = await createEntity(ann);
    ok(await setMember(ann, acme.entityId, bob.email, 'MEMBER'));
    const id = ok(await createDoc(ann, acme.entityId)).user.document.create.id as string;

    expect(await doc(bob, id)).to.deep.include({ id, owner: acme.entityId, version: 1 });
    expect(await docIds(bob)).to.include(id);
    for (const r of [
      await createDoc(bob, acme.entityId),
      await gql(bob, UPDATE_DOC, { id, input: { data: { registeredNumber: 'changed' } } }),
      await gql(bob, DELETE_DOC, { id }),
      await setMember(bob, acme.entityId, cem.email, 'MEMBER'),
      await setMember(bob, acme.entityId, bob.email, 'MANAGER'),
      await removeMember(bob, acme.entityId, ann.email),
    ]) {
      expect(errorOf(r).extensions.code).to.equal('FORBIDDEN');
    }
    expect(await doc(ann, id)).to.deep.include({ version: 1 });
    expect(await entities(cem)).to.deep.equal([]);
    // Documents the MEMBER creates without owner stay in their own vault.
    const own = ok(await createDoc(bob, null)).user.document.create.id as string;
    expect(await doc(bob, own)).to.deep.include({ owner: null });
    expect(await doc(ann, own)).to.equal(null);
  });

  it("a MANAGER writes the entity's documents: create with owner, update, delete", async () => {
    const ann = await user();
    const acme = await createEntity(ann);
    const id = ok(await createDoc(ann, acme.entityId)).user.document.create.id as string;
    expect(ok(await gql(ann, UPDATE_DOC, { id, input: { data: { registeredNumber: 'HRB 2' } } })).user.document.update).to.deep.equal({
      id,
      version: 2,
    });
    expect(await docIds(ann)).to.include(id);
    expect(ok(await gql(ann, DELETE_DOC, { id })).user.document.delete).to.equal(true);
    expect(await doc(ann, id)).to.equal(null);
  });

  it('a removed MANAGER loses access: the entity and its documents no longer resolve, writes are refused', async () => {
    const [ann, bob] = [await user(), await user()];
    const acme = await createEntity(ann);
    ok(await setMember(ann, acme.entityId, bob.email, 'MANAGER'));
    const id = ok(await createDoc(bob, acme.entityId)).user.document.create.id as string;
    expect(await doc(bob, id)).to.deep.include({ owner: acme.entityId });

    const left = ok(await removeMember(ann, acme.entityId, bob.email)).user.entity.removeMember as Entity;
    expect(left.members).to.deep.equal([{ email: ann.email, role: 'MANAGER' }]);

    expect(await entities(bob)).to.deep.equal([]);
    expect(await doc(bob, id)).to.equal(null);
    expect(await docIds(bob)).to.not.include(id);
    for (const r of [
      await createDoc(bob, acme.entityId),
      await gql(bob, UPDATE_DOC, { id, input: { data: {} } }),
      await gql(bob, DELETE_DOC, { id }),
      await setMember(bob, acme.entityId, bob.email, 'MANAGER'),
      await removeMember(bob, acme.entityId, ann.email),
    ]) {
      expect(errorOf(r).extensions.code).to.equal('NOT_FOUND');
    }
    expect(await doc(ann, id)).to.deep.include({ version: 1 });
  });

  it('a non-member sees nothing: every answer is exactly that of an unknown or malformed id', async () => {
    const [ann, eve] = [await user(), await user()];
    const acme = await createEntity(ann);
    const id = ok(await createDoc(ann, acme.entityId)).user.document.create.id as string;

    const refused = (r: Gql) => {
      const e = errorOf(r);
      return { message: e.message, code: e.extensions.code };
    };
    const answers = async (entityId: string, docId: string) => ({
      setMember: refused(await setMember(eve, entityId, eve.email, 'MANAGER')),
      removeMember: refused(await removeMember(eve, entityId, ann.email)),
      createDoc: refused(await createDoc(eve, entityId)),
      update: refused(await gql(eve, UPDATE_DOC, { id: docId, input: { data: {} } })),
      delete: refused(await gql(eve, DELETE_DOC, { id: docId })),
      read: await doc(eve, docId),
    });

    const real = await answers(acme.entityId, id);
    expect(real.setMember).to.deep.equal({ message: 'no such legal entity', code: 'NOT_FOUND' });
    expect(real.update).to.deep.equal({ message: 'no such document', code: 'NOT_FOUND' });
    expect(real.read).to.equal(null);
    expect(await answers(randomUUID(), randomUUID())).to.deep.equal(real);
    expect(await answers('not-a-uuid', 'not-a-uuid')).to.deep.equal(real);
    expect(await entities(eve)).to.deep.equal([]);
    expect(await docIds(eve)).to.not.include(id);
  });

  it('the last MANAGER cannot be removed or demoted (CONFLICT); with a second MANAGER both work', async () => {
    const [ann, bob] = [await user(), await user()];
    const acme = await createEntity(ann);
    ok(await setMember(ann, acme.entityId, bob.email, 'MEMBER'));
    for (const r of [await removeMember(ann, acme.entityId, ann.email), await setMember(ann, acme.entityId, ann.email, 'MEMBER')]) {
      const e = errorOf(r);
      expect(e.extensions.code).to.equal('CONFLICT');
      expect(e.message).to.contain('at least one MANAGER');
    }
    ok(await setMember(ann, acme.entityId, bob.email, 'MANAGER'));
    const demoted = ok(await setMember(ann, acme.entityId, ann.email, 'MEMBER')).user.entity.setMember as Entity;
    expect(demoted.role).to.equal('MEMBER');
    expect(errorOf(await setMember(bob, acme.entityId, bob.email, 'MEMBER')).extensions.code).to.equal('CONFLICT');
    ok(await setMember(bob, acme.entityId, ann.email, 'MANAGER'));
    const left = ok(await removeMember(ann, acme.entityId, ann.email)).user.entity.removeMember as Entity;
    expect(left).to.deep.equal({
      entityId: acme.entityId,
      name: 'Acme GmbH',
      role: 'MANAGER',
      members: [{ email: bob.email, role: 'MANAGER' }],
    });
    expect(await entities(ann)).to.deep.equal([]);
  });

  it('two MANAGERs removing each other at once: exactly one wins, a MANAGER remains', async () => {
    const [ann, bob] = [await user(), await user()];
    const acme = await createEntity(ann);
    ok(await setMember(ann, acme.entityId, bob.email, 'MANAGER'));
    const results = await Promise.all([removeMember(ann, acme.entityId, bob.email), removeMember(bob, acme.entityId, ann.email)]);
    expect(results.filter((r) => !r.errors)).to.have.length(1);
    expect(results.map((r) => r.errors?.[0]?.extensions.code).filter(Boolean)).to.satisfy((codes: string[]) =>
      codes.every((c) => c === 'CONFLICT' || c === 'NOT_FOUND'),
    );
    const remaining = [...(await entities(ann)), ...(await entities(bob))];
    expect(remaining).to.have.length(1);
    expect(remaining[0]!.members).to.deep.equal([{ email: remaining[0]!.members[0]!.email, role: 'MANAGER' }]);
  });

  it('needs a registered user', async () => {
    const fresh = await login(address(), false);
    expect(errorOf(await gql(fresh, CREATE_ENTITY, { name: 'x' })).extensions.code).to.equal('FORBIDDEN');
    expect(errorOf(await gql(fresh, ENTITIES)).extensions.code).to.equal('FORBIDDEN');
  });

  it('stores members by address in the read model, one row per member', async () => {
    const ann = await user();
    const acme = await createEntity(ann);
    const rows = (
      await service.db.query<{ email: string; role: string }>('SELECT email, role FROM rm.entity_members WHERE entity_id = $1', [
        acme.entityId,
      ])
    ).rows;
    expect(rows).to.deep.equal([{ email: ann.email, role: 'MANAGER' }]);
  });
});
