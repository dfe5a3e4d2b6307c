import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type Gql, type Manifest, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

/** JSON text nesting `levels` deep, written by hand: JSON.stringify itself overflows long before 100,000. */
const deepObject = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

const CREATE = 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }';
const UPDATE = 'mutation($id: ID!, $i: DocumentUpdateInput!) { user { document { update(id: $id, input: $i) { version } } } }';

type Raw = { status: number; text: string; body: Record<string, unknown> };

describe(`§10.4 depth: no JSON value nests deeper than 64 levels (${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let member: string;
  let ann: User;
  let manifest: Manifest;
  const d = driver({ api: () => api, member: () => member, log: () => service.db });

  /** A body as text, so that it can nest deeper than any serializer would go. */
  async function post(path: string, token: string, text: string | Buffer, contentType = 'application/json'): Promise<Raw> {
    const res = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body: typeof text === 'string' ? text : new Uint8Array(text),
    });
    const body = await res.text();
    return { status: res.status, text: body, body: JSON.parse(body) as Record<string, unknown> };
  }
  const graphql = (query: string, variables: string) =>
    post('/graphql', ann.token, `{"query":${JSON.stringify(query)},"variables":${variables}}`);
  /** A document's input whose data nests `levels` deep: in the body, that is three levels more (body, variables, input). */
  const documentInput = (data: string) => `{"name":"Deep","documentSchema":{"type":"object"},"data":${data}}`;

  const expectBadUserInput = (r: Raw) => {
    expect(r.status, r.text.slice(0, 300)).to.be.below(500);
    expect((r.body as Gql).errors?.[0]?.extensions.code, r.text.slice(0, 300)).to.equal('BAD_USER_INPUT');
    expect(r.text).to.not.match(/RangeError|Maximum call stack|\n\s+at /);
  };
  const expectInvalidRequest = (r: Raw) => {
    expect({ status: r.status, code: r.body.code }, r.text.slice(0, 300)).to.deep.equal({ status: 400, code: 'invalid_request' });
    expect(r.body.detail).to.match(/nested more than 64 levels/);
    expect(r.text).to.not.match(/RangeError|Maximum call stack|\n\s+at /);
  };

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    member = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    manifest = await d.manifest([MANUAL_NAME_SLOT]);
    ann = await api.user();
  });
  after(() => service?.close());

  it('a REST body 100,000 levels deep answers 400 invalid_request, never a 500 or a stack trace, and appends nothing', async () => {
    let reply: Raw | undefined;
    const appended = await d.appended(async () => {
      reply = await post('/org/v1/organizations', ann.token, `{"name":${deepArray(100_000)}}`);
    });
    expectInvalidRequest(reply!);
    expect(appended).to.deep.equal([]);
  });

  it('correct data one level deeper than the limit answers 400 invalid_request, appends nothing, and the copies still read', async () => {
    const doc = await d.createDoc(ann, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
    const slotId = manifest.slots[0]!.slotId;
    const requestId = await d.connected(manifest.manifestId, ann, { [slotId]: [doc] });
    await d.kept(requestId, slotId);
    let reply: Raw | undefined;
    const appended = await d.appended(async () => {
      reply = await post(
        `/org/v1/requests/${requestId}/slots/${slotId}/correct`,
        member,
        `{"expectedSourceVersion":1,"expectedOrgVersion":1,"data":${deepObject(64)}}`,
      );
    });
    expectInvalidRequest(reply!);
    expect(appended).to.deep.equal([]);
    expect(await d.copies(requestId)).to.have.length(1);
  });

  it('document data nesting the body exactly 64 levels deep is created', async () => {
    const r = await graphql(CREATE, `{"input":${documentInput(deepObject(61))}}`);
    expect((r.body as Gql).errors, r.text.slice(0, 300)).to.equal(undefined);
  });

  it('document data one level deeper is BAD_USER_INPUT, and nothing is appended', async () => {
    let reply: Raw | undefined;
    const appended = await d.appended(async () => {
      reply = await graphql(CREATE, `{"input":${documentInput(deepObject(62))}}`);
    });
    expectBadUserInput(reply!);
    expect(appended).to.deep.equal([]);
  });

  it('document data 100,000 levels deep is BAD_USER_INPUT on create, never a 500, and nothing is appended', async () => {
    let reply: Raw | undefined;
    const appended = await d.appended(async () => {
      reply = await graphql(CREATE, `{"input":${documentInput(deepArray(100_000))}}`);
    });
    expectBadUserInput(reply!);
    expect(appended).to.deep.equal([]);
  });

  it('document data 100,000 levels deep is BAD_USER_INPUT on update, and the document keeps its version', async () => {
    const id = await d.createDoc(ann, { name: 'Shallow', documentSchema: { type: 'object' }, data: { a: 1 } });
    let reply: Raw | undefined;
    const appended = await d.appended(async () => {
      reply = await graphql(UPDATE, `{"id":${JSON.stringify(id)},"i":{"data":${deepArray(100_000)}}}`);
    });
    expectBadUserInput(reply!);
    expect(appended).to.deep.equal([]);
  });

  it('a documentSchema 100,000 levels deep is BAD_USER_INPUT, and nothing is appended', async () => {
    let reply: Raw | undefined;
    const appended = await d.appended(async () => {
      reply = await graphql(CREATE, `{"input":{"name":"Deep","documentSchema":${deepObject(100_000)},"data":{}}}`);
    });
    expectBadUserInput(reply!);
    expect(appended).to.deep.equal([]);
  });

  // RFC 8259 §8.1: JSON between systems is UTF-8; in another charset brackets need not be ASCII bytes.
  for (const [charset, body] of [
    [
      'utf-7',
      `{"query":${JSON.stringify(CREATE)},"variables":{"input":${documentInput(`${'+AFs-'.repeat(100_000)}${'+AF0-'.repeat(100_000)}`)}}}`,
    ],
    ['utf-16le', Buffer.from(`{"query":${JSON.stringify(CREATE)},"variables":{"input":${documentInput(deepArray(100_000))}}}`, 'utf16le')],
  ] as const) {
    it(`a body in charset ${charset} answers 415 unsupported_media_type, whatever it nests, and nothing is appended`, async () => {
      let reply: Raw | undefined;
      const appended = await d.appended(async () => {
        reply = await post('/graphql', ann.token, body, `application/json; charset=${charset}`);
      });
      expect({ status: reply!.status, code: reply!.body.code }, reply!.text.slice(0, 300)).to.deep.equal({
        status: 415,
        code: 'unsupported_media_type',
      });
      expect(appended).to.deep.equal([]);
    });
  }

  it('an inline literal argument nested deeper than 64 levels is BAD_USER_INPUT', async () => {
    const literal = `${'{a: '.repeat(64)}1${'}'.repeat(64)}`;
    const r = await graphql(
      `mutation { user { document { create(input: {name: "Deep", documentSchema: {}, data: ${literal}}) { id } } } }`,
      '{}',
    );
    expectBadUserInput(r);
  });
});
