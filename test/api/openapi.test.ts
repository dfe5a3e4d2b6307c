import { expect } from 'chai';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import { buildSchema, printSchema } from 'graphql';
import { schema as executedSchema } from '../../src/api/graphql/graphql-route.js';
import { mainBackend } from '../support/databases.js';
import { client, type Reply } from '../support/http.js';
import { RecordingMailer } from '../support/recording-mailer.js';
import { registeredRoutes, type RegisteredRoute } from './support/registered-routes.js';
import { startTestService, type TestService } from './support/service.js';

type Operation = { parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown> };
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const MiB = 1024 * 1024;

/** router.all() answers every method; the document describes it once, as GET, beside the methods routed on their own. */
const documentedAs = (route: RegisteredRoute) => `${route.method === 'ALL' ? 'GET' : route.method} ${route.path}`;

function operations(doc: Document): Array<{ key: string; path: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, path, op })),
  );
}

/** Every `$ref` in the document, with where it was found. */
function refs(value: unknown, at = '#'): Array<{ at: string; ref: string }> {
  if (Array.isArray(value)) return value.flatMap((v, i) => refs(v, `${at}/${i}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ at, ref: v }] : refs(v, `${at}/${k}`)));
}

function resolve(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), doc);
}

describe(`the OpenAPI document and the GraphQL SDL (R-DOCS-01, R-DOCS-02, ${mainBackend})`, function () {
  let service: TestService;
  let app: Express;
  let api: ReturnType<typeof client>;
  let mailer: RecordingMailer;
  let doc: Document;
  let problemSchema: ValidateFunction;
  let ajv: Ajv2020;

  before(async () => {
    mailer = new RecordingMailer();
    service = await startTestService({
      domain: { mailer },
      routes: (a) => {
        app = a;
      },
    });
    api = client(service.url);
    const res = await fetch(`${service.url}/openapi.json`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    doc = (await res.json()) as Document;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'openapi');
    problemSchema = ajv.compile({ $ref: 'openapi#/components/schemas/Problem' });
  });
  after(async () => {
    await service?.close();
  });

  async function userToken(): Promise<string> {
    const email = `docs-${Math.random().toString(36).slice(2)}@example.com`;
    expect((await api.post('/auth/send-otp', { email })).status).to.equal(200);
    const r = await api.post('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return String(r.body.token);
  }

  describe('GET /openapi.json', function () {
    it('is an OpenAPI 3.1 document whose every $ref resolves and every path parameter is declared', function () {
      expect(doc.openapi).to.match(/^3\.1\.\d+$/);
      const unresolved = refs(doc).filter(({ ref }) => resolve(doc, ref) === undefined);
      expect(unresolved, 'refs that resolve to nothing').to.deep.equal([]);
      for (const { key, path, op } of operations(doc)) {
        const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
        const declared = (op.parameters ?? [])
          .filter((p) => p.in === 'path')
          .map((p) => p.name)
          .sort();
        expect(declared, `path parameters of ${key}`).to.deep.equal(inPath);
        expect(Object.keys(op.responses), `responses of ${key}`).to.satisfy(
          (codes: string[]) => codes.some((c) => /^2\d\d$/.test(c)) || key === 'GET /graphql',
        );
      }
    });

    it('documents every route the app serves, and no route it does not serve', function () {
      const served = new Set(registeredRoutes(app).map(documentedAs));
      const documented = new Set(operations(doc).map((o) => o.key));
      expect(
        [...served].filter((r) => !documented.has(r)),
        'served but undocumented',
      ).to.deep.equal([]);
      expect(
        [...documented].filter((r) => !served.has(r)),
        'documented but not served',
      ).to.deep.equal([]);
      // The walk really reached nested routers: the org plane is three routers deep.
      expect(served).to.include('DELETE /org/v1/requests/{requestId}/copies/{adoptionId}');
      expect(served).to.include('GET /healthz');
    });

    it('the problem bodies routes really answer match the documented Problem schema, with a status the route documents', async function () {
      const token = await userToken();
      const big = JSON.stringify({ email: 'x'.repeat(MiB + 10) });
      const answers: Array<[string, Reply]> = [
        ['POST /auth/send-otp', await api.post('/auth/send-otp', { email: 'not an address' })],
        ['POST /auth/send-otp', await api.post('/auth/send-otp', '{"email": ')],
        ['POST /auth/send-otp', await api.post('/auth/send-otp', big)],
        ['POST /auth/send-otp', await api.post('/auth/send-otp', 'email=a', undefined, { 'content-type': 'text/plain' })],
        ['POST /auth/verify-otp', await api.post('/auth/verify-otp', { email: 'a@example.com', code: '000000' })],
        ['POST /org/v1/organizations', await api.post('/org/v1/organizations', { name: 'Acme' })],
        ['POST /org/v1/organizations', await api.post('/org/v1/organizations', { name: 'Acme' }, token)],
        ['GET /org/v1/members', await api.get('/org/v1/members', token)],
        ['GET /vault/files/{fileId}', await api.get('/vault/files/00000000-0000-4000-8000-000000000000', token)],
        ['GET /vault/export', await api.get('/vault/export?link=nope')],
        ['GET /schemas/core/{file}', await api.get('/schemas/core/nothing.json')],
        ['GET /graphql', await api.get('/graphql')],
        ['POST /graphql', await api.post('/graphql', { query: '{ __typename }' })],
      ];
      const statuses = new Set<number>();
      for (const [key, reply] of answers) {
        expect(reply.headers.get('content-type'), key).to.match(/^application\/problem\+json/);
        expect(problemSchema(reply.body), `${key} ${JSON.stringify(reply.body)}: ${JSON.stringify(problemSchema.errors)}`).to.equal(true);
        const [method, path] = key.split(' ') as [string, string];
        const responses = doc.paths[path]?.[method.toLowerCase()]?.responses ?? {};
        expect(Object.keys(responses), `${key} answered ${reply.status}`).to.include(String(reply.status));
        // R-DOCS-06: the code is one the operation lists under that status.
        const answer = responses[String(reply.status)] as { $ref?: string };
        const at = answer.$ref ?? `#/paths/${path.replaceAll('/', '~1')}/${method.toLowerCase()}/responses/${reply.status}`;
        const valid = ajv.validate({ $ref: `openapi${at}/content/application~1problem+json/schema` }, reply.body);
        expect(valid, `${key} ${JSON.stringify(reply.body)}: ${JSON.stringify(ajv.errors)}`).to.equal(true);
        statuses.add(reply.status);
      }
      expect([...statuses].sort()).to.deep.equal([400, 401, 403, 404, 413, 415]);
    });

    it('an unknown path answers a problem of the same schema', async function () {
      const reply = await api.get('/no/such/route');
      expect(reply.status).to.equal(404);
      expect(problemSchema(reply.body)).to.equal(true);
    });

    it('each error a few routes document is one they really answer', async function () {
      const token = await userToken();
      const produced = async (path: string, method: string, replies: Reply[]) => {
        // 429 of fair use (R-LIM-12), which every route with a token documents, is produced in fair-use.test.ts.
        const documented = Object.keys(doc.paths[path]![method]!.responses).filter((s) => /^4\d\d$/.test(s) && s !== '429');
        expect(replies.map((r) => String(r.status)).sort(), `${method.toUpperCase()} ${path}`).to.deep.equal(documented.sort());
      };
      await produced('/schemas/core/{file}', 'get', [await api.get('/schemas/core/nothing.json')]);
      await produced('/graphql', 'get', [await api.get('/graphql')]);
      await produced('/graphql', 'post', [
        await api.post('/graphql', '{"query": '),
        await api.post('/graphql', { query: '{ __typename }' }),
        await api.post('/graphql', JSON.stringify({ query: 'x'.repeat(MiB + 10) }), token),
        await api.post('/graphql', 'query', token, { 'content-type': 'text/plain' }),
      ]);
      const member = await registered(await userToken());
      await produced('/vault/files/{fileId}', 'get', [
        await api.get('/vault/files/x?version=0', member),
        await api.get('/vault/files/x'),
        await api.get('/vault/files/x', token),
        await api.get('/vault/files/x', member),
      ]);
    });
  });

  /** A token of a user who registered, so user routes past R-AUTH-16 answer. */
  async function registered(token: string): Promise<string> {
    const r = await api.graphql(token, 'mutation { user { register(input: {}) { userId } } }');
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return token;
  }

  describe('GET /graphql/schema.graphql', function () {
    it('answers, as text/plain, an SDL with exactly the types of the schema the service executes', async function () {
      const res = await fetch(`${service.url}/graphql/schema.graphql`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      const served = buildSchema(await res.text());
      expect(printSchema(served)).to.equal(printSchema(executedSchema));
      expect(Object.keys(served.getTypeMap())).to.include('Query');
    });
  });
});
