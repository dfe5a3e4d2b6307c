import { MANUAL_NAME_SLOT } from './support/consent-scenario.js';
import { expect } from 'chai';
import type { Express } from 'express';
import fc from 'fast-check';
import { PERMISSIONS } from '../../src/events/organization-events.js';
import { openApiDocument } from '../../src/api/openapi/document.js';
import { mainBackend } from '../support/databases.js';
import { RecordingMailer } from '../support/recording-mailer.js';
import { fileClient } from './files/file-client.js';
import { orgClient, type OrgClient } from './org/org-client.js';
import {
  extraHeaders,
  hostileAuthorization,
  hostileContentType,
  hostileJsonBody,
  hostileText,
  jsonText,
  otherMethod,
  pathSegment,
  queryValue,
  shaped,
  type Known,
  type Schema,
} from './support/hostile-values.js';
import { briefly, FUZZ_RUNS, refused, rowCounter, verdict } from './support/hostile-verdict.js';
import { sendRaw, type RawReply, type RawRequest } from './support/raw-http.js';
import { registeredRoutes } from './support/registered-routes.js';
import { startTestService, type TestService } from './support/service.js';

type Parameter = { readonly name: string; readonly in: string; readonly schema?: Schema };
type Operation = {
  readonly security?: ReadonlyArray<Record<string, unknown>>;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content: Readonly<Record<string, { readonly schema: Schema }>> };
};
type Route = { readonly method: string; readonly path: string; readonly op: Operation };

const routes: Route[] = Object.entries(openApiDocument.paths as unknown as Record<string, Record<string, Operation>>).flatMap(
  ([path, item]) => Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
);
const PATH_PARAM = /\{([^}]+)\}/g;

/** What a client sends to one route, with each part either sound or hostile. */
type Case = {
  readonly params: readonly string[];
  readonly query: readonly string[];
  readonly body: Buffer | undefined;
  readonly contentType: string | undefined;
  readonly authorization: string | undefined;
  readonly extra: ReadonlyArray<[string, Buffer]>;
  readonly method: string | undefined;
};

describe(`hostile input to every REST route never fails the service (contract §9; ${mainBackend})`, function () {
  this.timeout(600_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let app: Express;
  let api: OrgClient;
  let ann: { email: string; token: string };
  let bob: { email: string; token: string };
  let organizationId: string;
  let member: string;
  let sealable: string;
  let known: Known;
  let rows: () => Promise<Record<string, number>>;
  /** Each route's statuses, to show the fuzz got past the auth layer and the edge checks. */
  const statuses = new Map<string, Set<number>>();

  before(async () => {
    service = await startTestService({ domain: { mailer }, routes: (a) => (app = a) });
    api = orgClient(service.url, mailer);
    ann = await api.user();
    bob = await api.user();
    organizationId = await api.organization(ann.token);
    member = await api.signIn(ann.token, organizationId);
    // Sealing an organization's key refuses everything after it: that route gets an organization of its own.
    sealable = await api.signIn(ann.token, await api.organization(ann.token, 'Sealable'));
    expect((await api.put(`/org/v1/members/${bob.email}`, member, { permissions: [...PERMISSIONS] })).status).to.equal(200);
    const slot = { ...MANUAL_NAME_SLOT, group: 'Id' };
    const manifest = await api.post('/org/v1/manifests', member, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [slot],
    });
    expect(manifest.status, JSON.stringify(manifest.body)).to.equal(201);
    const { manifestId, slots } = manifest.body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    const sent = await api.post('/org/v1/requests', member, { manifestId, recipientEmail: ann.email });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    const requestId = (sent.body.request as { requestId: string }).requestId;
    const file = await fileClient(service.url).upload(ann.token, { fileName: 'a.txt' }, Buffer.from('a'));
    expect(file.status, JSON.stringify(file.json)).to.equal(201);
    known = {
      organizationId: [organizationId],
      manifestId: [manifestId],
      requestId: [requestId],
      slotId: slots.map((s) => s.slotId),
      fileId: [String(file.json.fileId)],
      email: [bob.email],
      recipientEmail: [ann.email, bob.email],
      file: ['PersonFullName.json'],
      fileName: ['a.txt'],
      version: ['1', '2'],
      retention: ['P30D', 'P1Y'],
      target: ['PersonFullName'],
    };
    rows = await rowCounter(service.db);
  });
  after(() => service?.close());

  /** Tokens a fuzz run may have ended (renew, a member removed) are replaced before the next route. */
  async function freshTokens(): Promise<void> {
    if ((await api.post('/graphql', ann.token, { query: '{ user { me { email } } }' })).status === 401)
      ann = await api.user({ email: ann.email, register: false });
    if ((await api.get('/org/v1/members', member)).status === 401) member = await api.signIn(ann.token, organizationId);
  }

  function tokenFor(route: Route): string | undefined {
    const schemes = (route.op.security ?? []).flatMap((s) => Object.keys(s));
    if (route.path === '/org/v1/key/seal') return sealable;
    if (schemes.includes('orgToken')) return member;
    if (schemes.includes('userToken')) return ann.token;
    return undefined;
  }

  function caseOf(route: Route): fc.Arbitrary<Case> {
    const names = [...route.path.matchAll(PATH_PARAM)].map((m) => m[1]!);
    const queries = (route.op.parameters ?? []).filter((p) => p.in === 'query');
    const content = route.op.requestBody?.content ?? {};
    const json = content['application/json']?.schema;
    const bytes = content['*/*'] !== undefined;
    const token = tokenFor(route);
    const other = token === ann.token ? member : ann.token;
    const sound = (name: string) => (known[name]?.length ? fc.constantFrom(...known[name]) : hostileText);
    const body: fc.Arbitrary<Buffer | undefined> = json
      ? fc.oneof(
          { weight: 6, arbitrary: shaped(json, known).map((v) => Buffer.from(jsonText(v), 'utf8')) },
          { weight: 2, arbitrary: hostileJsonBody },
        )
      : bytes
        ? fc.oneof(
            fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b)),
            hostileJsonBody,
          )
        : fc.option(hostileJsonBody, { freq: 6, nil: undefined });
    const contentType = fc.oneof(
      { weight: 6, arbitrary: fc.constant(bytes ? 'application/octet-stream' : 'application/json') },
      { weight: 1, arbitrary: hostileContentType },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
    const authorization = fc.oneof(
      { weight: 8, arbitrary: fc.constant(token ? `Bearer ${token}` : undefined) },
      { weight: 1, arbitrary: hostileAuthorization(other) },
    );
    return fc.record({
      params: fc.tuple(...names.map((n) => pathSegment(known[n] ?? []))),
      query: fc
        .tuple(...queries.map((q) => fc.option(queryValue(q.name, sound(q.name)), { freq: 4, nil: '' })))
        .map((qs) => qs.filter(Boolean)),
      body,
      contentType,
      authorization,
      extra: fc.option(extraHeaders, { freq: 4, nil: [] }),
      method: fc.option(otherMethod, { freq: 10, nil: undefined }),
    });
  }

  function requestOf(route: Route, c: Case): RawRequest {
    let i = 0;
    const path = route.path.replace(PATH_PARAM, () => c.params[i++]!);
    const headers: Array<[string, Buffer]> = [...c.extra];
    if (c.authorization !== undefined) headers.push(['Authorization', Buffer.from(c.authorization, 'latin1')]);
    if (c.body && c.contentType !== undefined) headers.push(['Content-Type', Buffer.from(c.contentType)]);
    const target = c.query.length ? `${path}?${c.query.join('&')}` : path;
    return { method: c.method ?? route.method, target: Buffer.from(target, 'latin1'), headers, ...(c.body ? { body: c.body } : {}) };
  }

  /** The error the service logged for this answer, if any: what to fix. */
  const logged = (reply: RawReply) => {
    const line = service.logs().find((l) => l.requestId === reply.headers['x-request-id'] && Number(l.level) >= 50);
    return line ? `\nlogged: ${JSON.stringify(line.err ?? line).slice(0, 1500)}` : '';
  };

  /** The request as a reader of a failure wants it: short, with its bytes escaped. */
  const described = (r: RawRequest) =>
    JSON.stringify({
      target: r.target.toString('latin1').slice(0, 300),
      headers: r.headers.map(([k, v]) => `${k}: ${v.toString('latin1').slice(0, 200)}`),
      body: r.body?.toString('latin1').slice(0, 300),
    });

  it('fuzzes every route the app registered: each is documented with its parameters and body', () => {
    const documented = new Set(routes.map((r) => `${r.method} ${r.path}`));
    const served = registeredRoutes(app).map((r) => `${r.method === 'ALL' ? 'GET' : r.method} ${r.path}`);
    expect(served.filter((r) => !documented.has(r))).to.deep.equal([]);
  });

  describe('the defects this fuzz found, each pinned', () => {
    const send = (target: string, headers: Array<[string, Buffer]>, body?: string) =>
      sendRaw(service.url, {
        method: body === undefined ? 'GET' : 'POST',
        target: Buffer.from(target, 'latin1'),
        headers,
        ...(body === undefined ? {} : { body: Buffer.from(body) }),
      });
    const problemOf = (reply: RawReply) => ({
      status: reply.status,
      type: reply.headers['content-type']?.split(';')[0],
      code: (JSON.parse(reply.text) as { code?: unknown }).code,
    });

    it('headers over 16 KiB answer 431 as a problem, not a bare status line (R-FUZZ-01)', async () => {
      const reply = await send('/healthz', [['X-Huge', Buffer.from('h'.repeat(20_000))]]);
      expect(problemOf(reply)).to.deep.equal({ status: 431, type: 'application/problem+json', code: 'invalid_request' });
    });

    it('a request line node cannot parse answers 400 as a problem (R-FUZZ-01)', async () => {
      const reply = await send('/org/v1/a b', []);
      expect(problemOf(reply)).to.deep.equal({ status: 400, type: 'application/problem+json', code: 'invalid_request' });
      expect(reply.text).to.not.contain('a b');
    });

    it('a path parameter that is not percent-encoded UTF-8 answers 400 invalid_request, not 500 (R-FUZZ-02)', async () => {
      for (const segment of ['%ff%fe', '%c3%28', '%ed%a0%80', '%', '%zz']) {
        const reply = await send(`/org/v1/requests/${segment}`, [['Authorization', Buffer.from(`Bearer ${member}`)]]);
        expect(problemOf(reply), segment).to.deep.equal({ status: 400, type: 'application/problem+json', code: 'invalid_request' });
        expect(reply.text, segment).to.not.contain(segment);
      }
    });

    it('GraphQL variables that are not an object answer BAD_USER_INPUT (R-FUZZ-03)', async () => {
      const auth: [string, Buffer] = ['Authorization', Buffer.from(`Bearer ${ann.token}`)];
      const json: [string, Buffer] = ['Content-Type', Buffer.from('application/json')];
      for (const body of [
        '{"query":"{ user { me { email } } }","variables":[1]}',
        '{"query":"{ user { me { email } } }","operationName":{}}',
      ]) {
        const reply = await send('/graphql', [auth, json], body);
        expect(reply.status, body).to.equal(400);
        expect(JSON.parse(reply.text), body).to.have.nested.property('errors[0].extensions.code', 'BAD_USER_INPUT');
      }
    });

    it('GraphQL answers JSON whatever Accept says, and refuses a body of another type as a 415 problem (R-FUZZ-03)', async () => {
      const auth: [string, Buffer] = ['Authorization', Buffer.from(`Bearer ${ann.token}`)];
      const query = '{"query":"{ user { me { email } } }"}';
      const odd = await send(
        '/graphql',
        [auth, ['Content-Type', Buffer.from('application/json')], ['Accept', Buffer.from('application/x-nothing')]],
        query,
      );
      expect(odd.status).to.equal(200);
      expect(JSON.parse(odd.text)).to.have.nested.property('data.user.me.email', ann.email);
      const ld = await send('/graphql', [auth, ['Content-Type', Buffer.from('application/ld+json')]], query);
      expect(problemOf(ld)).to.deep.equal({ status: 415, type: 'application/problem+json', code: 'unsupported_media_type' });
    });
  });

  for (const route of routes) {
    it(`${route.method} ${route.path}: hostile path, query, headers and body answer < 500, a problem without internals, and a refusal writes nothing`, async () => {
      await freshTokens();
      await fc.assert(
        fc.asyncProperty(caseOf(route), async (c) => {
          const request = requestOf(route, c);
          const before = await rows();
          const reply = await sendRaw(service.url, request).catch((e: Error) => expect.fail(`${e.message} for ${described(request)}`));
          statuses.set(`${route.method} ${route.path}`, (statuses.get(`${route.method} ${route.path}`) ?? new Set()).add(reply.status));
          const surface = route.path === '/graphql' ? 'graphql' : 'rest';
          const sent = request.target.toString('latin1') + (request.body?.toString('utf8') ?? '');
          // A HEAD answer has no body to judge.
          const wrong =
            request.method === 'HEAD' ? (reply.status < 500 ? null : `answered ${reply.status}`) : verdict(reply, sent, surface);
          if (wrong) expect.fail(`${wrong}: ${reply.status} ${reply.text.slice(0, 500)}\nfor ${described(request)}${logged(reply)}`);
          if (refused(reply)) expect(await rows(), `rows after a refused ${described(request)}`).to.deep.equal(before);
        }),
        { numRuns: FUZZ_RUNS, endOnFailure: true, reporter: briefly },
      );
    });
  }

  it('got past the token checks and the edge validation: most routes answered 2xx to some fuzzed request', () => {
    const reached = [...statuses].filter(([, seen]) => [...seen].some((s) => s >= 200 && s < 300)).map(([route]) => route);
    console.log(JSON.stringify(Object.fromEntries([...statuses].map(([r, seen]) => [r, [...seen].sort().join(' ')]))));
    expect(reached.length).to.be.at.least(routes.length / 2);
  });
});
