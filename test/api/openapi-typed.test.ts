import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { SERVICE_PROBLEMS } from '../../src/api/problems.js';
import { refusals } from '../../src/api/refusals.js';
import { DOCS_FILES } from '../../src/api/openapi/docs-page.js';
import type { CopyWorkers } from '../../src/workers/copy-workers.js';
import type { JobQueue } from '../../src/workers/queue/queue.js';
import { openWorkerQueue, startWorkers } from '../support/copy-workers.js';
import { mainBackend } from '../support/databases.js';
import { receiver, startDeliveries, type Receiver } from './webhooks/webhook-support.js';
import { RecordingMailer } from '../support/recording-mailer.js';
import { orgClient, type OrgClient } from './org/org-client.js';
import { driver, MANUAL_NAME_SLOT, PASSPORT_SLOT, type Adoption, type Copy, type Proposal } from './support/driver.js';
import { startTestService, type TestService } from './support/service.js';
import { OPERATIONS_CHECKED_ELSEWHERE, PARTNER_SIGN_IN_OPERATIONS } from './support/documented.js';

type Schema = { readonly [key: string]: unknown };
type Media = { schema?: Schema; example?: unknown };
type Answer = { $ref?: string; content?: Record<string, Media> };
type Operation = {
  operationId?: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, Answer>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, Answer> };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const isJson = (media: string) => /^application\/(.+\+)?json$/.test(media);
const pointer = (path: string) => path.replaceAll('~', '~0').replaceAll('/', '~1');
const statusOf = (code: string): number =>
  code in refusals ? refusals[code as keyof typeof refusals].status : SERVICE_PROBLEMS[code as keyof typeof SERVICE_PROBLEMS].status;

function operations(doc: Document): Array<{ key: string; method: string; path: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op })),
  );
}

/** Every schema of the document with where it is: the shared ones, parameters, bodies, answers, and all they nest. */
function schemasIn(doc: Document): Array<{ at: string; schema: Schema }> {
  const found: Array<{ at: string; schema: Schema }> = [];
  const visit = (schema: unknown, at: string) => {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
    const s = schema as Schema;
    found.push({ at, schema: s });
    for (const key of ['properties', 'patternProperties', '$defs']) {
      for (const [name, sub] of Object.entries((s[key] as Record<string, unknown> | undefined) ?? {})) visit(sub, `${at}/${key}/${name}`);
    }
    for (const key of ['items', 'additionalProperties', 'not', 'contains']) visit(s[key], `${at}/${key}`);
    for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) {
      ((s[key] as unknown[] | undefined) ?? []).forEach((sub, i) => visit(sub, `${at}/${key}/${i}`));
    }
  };
  for (const [name, schema] of Object.entries(doc.components.schemas)) visit(schema, `#/components/schemas/${name}`);
  const contents = (at: string, content: Record<string, Media> | undefined) => {
    for (const [media, m] of Object.entries(content ?? {})) visit(m.schema, `${at}/content/${media}`);
  };
  for (const [name, answer] of Object.entries(doc.components.responses)) contents(`#/components/responses/${name}`, answer.content);
  for (const { key, op } of operations(doc)) {
    for (const p of (op as { parameters?: Array<{ name: string; schema?: Schema }> }).parameters ?? [])
      visit(p.schema, `${key} ?${p.name}`);
    contents(`${key} body`, op.requestBody?.content);
    for (const [status, answer] of Object.entries(op.responses)) contents(`${key} ${status}`, answer.content);
  }
  return found;
}

/** What a schema falls short of: an object or array that says nothing of its content, or a value of no type, unless said free-form. */
function bare(schema: Schema): string | null {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  const freeForm = typeof schema.description === 'string' && /^Free-form JSON/.test(schema.description);
  if (types.includes('object')) {
    const typed =
      Object.keys((schema.properties as object | undefined) ?? {}).length > 0 || typeof schema.additionalProperties === 'object';
    if (!typed && !(schema.additionalProperties === true && freeForm)) return 'an object without properties, not said free-form';
  }
  if (types.includes('array') && schema.items === undefined && schema.prefixItems === undefined) return 'an array without items';
  const says = ['type', '$ref', 'const', 'enum', 'allOf', 'anyOf', 'oneOf'].some((k) => k in schema);
  if (!says && !freeForm) return 'a value of no type, not said free-form';
  return null;
}

describe(`the OpenAPI document types every body, so a generated client is useful (R-DOCS-05, R-DOCS-06, C§12; ${mainBackend})`, function () {
  this.timeout(180_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let api: OrgClient;
  let doc: Document;
  let ajv: Ajv2020;

  let hooks: Awaited<ReturnType<typeof startDeliveries>>;
  let hook: Receiver;

  before(async () => {
    // A webhook on loopback needs the operator's permission (R-HOOK-05).
    service = await startTestService({ domain: { mailer, env: { WEBHOOK_ALLOW_PRIVATE: '1' } } });
    queue = await openWorkerQueue(service);
    workers = await startWorkers(service, queue);
    hooks = await startDeliveries(service);
    hook = await receiver();
    api = orgClient(service.url, mailer);
    doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Document;
    // Strict about `required` (every required field is a property of the schema), loose about OpenAPI's own keywords.
    ajv = new Ajv2020({ strict: false, strictRequired: true, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'openapi');
  });
  after(async () => {
    await hooks?.workers.stop();
    await hooks?.queue.close();
    await hook?.close();
    await workers?.stop();
    await queue?.close();
    await service?.close();
  });

  /** Validates `value` against the schema at `at` (a JSON pointer into the document); the errors, or null. */
  const invalid = (at: string, value: unknown): string | null =>
    ajv.validate({ $ref: `openapi#${at}` }, value) ? null : JSON.stringify(ajv.errors);

  it('no schema is an object without properties, an array without items or a value of no type, unless it says it is free-form JSON', function () {
    const found = schemasIn(doc);
    expect(found.length).to.be.greaterThan(300);
    const wrong = found.flatMap(({ at, schema }) => {
      const why = bare(schema);
      return why ? [`${at}: ${why}`] : [];
    });
    expect(wrong).to.deep.equal([]);
  });

  it('every operation has its own operationId, and every JSON body and success answer an example that validates against its schema', function () {
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(
      ids.filter((id) => typeof id !== 'string' || !/^[a-z][A-Za-z]+$/.test(id)),
      'operations without an operationId',
    ).to.deep.equal([]);
    expect(new Set(ids).size, 'operationIds are unique').to.equal(ids.length);
    const wrong: string[] = [];
    let examples = 0;
    for (const { key, path, method, op } of operations(doc)) {
      const at = `/paths/${pointer(path)}/${method}`;
      const media = [
        ...Object.entries(op.requestBody?.content ?? {}).map(([type, m]) => ({
          where: `${at}/requestBody/content/${pointer(type)}`,
          type,
          m,
        })),
        ...Object.entries(op.responses)
          .filter(([status]) => /^2\d\d$/.test(status))
          .flatMap(([status, answer]) =>
            Object.entries(answer.content ?? {}).map(([type, m]) => ({
              where: `${at}/responses/${status}/content/${pointer(type)}`,
              type,
              m,
            })),
          ),
      ];
      for (const { where, type, m } of media) {
        if (m.example === undefined) {
          if (isJson(type)) wrong.push(`${key} ${type}: no example`);
          continue;
        }
        examples++;
        const why = invalid(`${where}/schema`, m.example);
        if (why) wrong.push(`${key} ${type}: the example does not validate: ${why}`);
      }
    }
    expect(wrong).to.deep.equal([]);
    expect(examples).to.be.greaterThan(50);
  });

  it('every error answer is a Problem whose status and codes are those of its status, so a client can switch on the code', function () {
    const wrong: string[] = [];
    for (const { key, op } of operations(doc)) {
      for (const [status, answer] of Object.entries(op.responses).filter(([s]) => /^[45]\d\d$/.test(s))) {
        const resolved = answer.$ref ? doc.components.responses[answer.$ref.split('/').pop()!]! : answer;
        const schema = resolved.content?.['application/problem+json']?.schema as
          { allOf?: Array<{ $ref?: string }>; properties?: { status?: { const?: number }; code?: { enum?: string[] } } } | undefined;
        const codes = schema?.properties?.code?.enum ?? [];
        if (schema?.allOf?.[0]?.$ref !== '#/components/schemas/Problem') wrong.push(`${key} ${status}: not the shared Problem`);
        if (schema?.properties?.status?.const !== Number(status)) wrong.push(`${key} ${status}: status not fixed`);
        if (codes.length === 0) wrong.push(`${key} ${status}: no codes`);
        for (const code of codes) if (statusOf(code) !== Number(status)) wrong.push(`${key} ${status}: ${code} is a ${statusOf(code)}`);
      }
    }
    expect(wrong).to.deep.equal([]);
    const keep = doc.paths['/org/v1/requests/{requestId}/slots/{slotId}/adopt']!.post!.responses['403']!;
    expect(keep.content!['application/problem+json']!.schema).to.deep.include({
      properties: { status: { const: 403 }, code: { type: 'string', enum: ['adoption_refused', 'forbidden', 'participant_ineligible'] } },
    });
  });

  describe('the answers of a whole flow, every documented operation', function () {
    const covered = new Set<string>();
    let member: string;
    const d = driver({ api: () => api, member: () => member });

    type Call = { token?: string; json?: unknown; bytes?: Buffer; contentType?: string };
    /** One call, as any client makes it; the answer is checked against its operation's documented success answer. */
    async function answered(method: string, template: string, path: string, call: Call = {}): Promise<Record<string, any>> {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers: {
          ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
          ...(call.json !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(call.bytes ? { 'content-type': call.contentType ?? 'application/octet-stream' } : {}),
        },
        ...(call.json !== undefined ? { body: JSON.stringify(call.json) } : call.bytes ? { body: new Uint8Array(call.bytes) } : {}),
      });
      const key = `${method} ${template}`;
      const text = await res.text();
      const status = String(res.status);
      const answer = doc.paths[template]?.[method.toLowerCase()]?.responses[status];
      expect(answer && /^2\d\d$/.test(status), `${key} answered ${status} ${text.slice(0, 300)}`).to.equal(true);
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
      const media = answer!.content?.[type] ? type : '*/*';
      expect(answer!.content, `${key}: ${type} is a documented type`).to.have.property(media);
      covered.add(key);
      if (!isJson(type)) return { text };
      const body = JSON.parse(text) as Record<string, any>;
      const at = `/paths/${pointer(template)}/${method.toLowerCase()}/responses/${status}/content/${pointer(media)}/schema`;
      expect(invalid(at, body), `${key} ${text.slice(0, 500)}`).to.equal(null);
      return body;
    }
    const get = (template: string, path = template, token?: string) => answered('GET', template, path, { token });

    it('answers what the success schema of its operation documents, field by field, and the flow reaches every operation', async function () {
      // Operations and discovery.
      for (const path of ['/healthz', '/readyz', '/metrics', '/.well-known/jwks.json', '/schemas/core', '/openapi.json', '/docs'])
        await get(path);
      await get('/schemas/core/{file}', '/schemas/core/PersonFullName.json');
      await get('/problems/{code}', '/problems/version_conflict');
      await get('/graphql/schema.graphql');
      for (const file of Object.keys(DOCS_FILES)) await get('/docs/{file}', `/docs/${file}`);

      // Sign-in: a code, a session, a registered user, a second address confirmed.
      const email = `owner-${Math.random().toString(36).slice(2)}@example.com`;
      await answered('POST', '/auth/send-otp', '/auth/send-otp', { json: { email } });
      const login = await answered('POST', '/auth/verify-otp', '/auth/verify-otp', { json: { email, code: mailer.lastCodeFor(email) } });
      expect(login.isNewUser).to.equal(true);
      const registered = await answered('POST', '/graphql', '/graphql', {
        token: login.token,
        json: { query: 'mutation { user { register(input: {}) { userId } } }' },
      });
      expect(registered.errors).to.equal(undefined);
      const user = (await answered('POST', '/auth/renew', '/auth/renew', { token: login.token })).token as string;
      const other = `billing-${Math.random().toString(36).slice(2)}@example.com`;
      await answered('POST', '/auth/verify-email/send', '/auth/verify-email/send', { token: user, json: { email: other } });
      await answered('POST', '/auth/verify-email/confirm', '/auth/verify-email/confirm', {
        token: user,
        json: { email: other, code: mailer.lastCodeFor(other) },
      });

      // The organization, its members, apps and manifests.
      const { organization } = await answered('POST', '/org/v1/organizations', '/org/v1/organizations', {
        token: user,
        json: { name: 'Acme' },
      });
      await get('/org/v1/organizations', '/org/v1/organizations', user);
      const signedIn = await answered('POST', '/org/v1/token', '/org/v1/token', {
        token: user,
        json: { organizationId: organization.organizationId },
      });
      member = signedIn.token as string;
      const bob = `bob-${Math.random().toString(36).slice(2)}@example.com`;
      const memberPath = `/org/v1/members/${encodeURIComponent(bob)}`;
      await answered('PUT', '/org/v1/members/{email}', memberPath, { token: member, json: { permissions: ['request_read'] } });
      await get('/org/v1/members', '/org/v1/members', member);
      await answered('DELETE', '/org/v1/members/{email}', memberPath, { token: member });
      await get('/org/v1/key', '/org/v1/key', member);
      await answered('POST', '/org/v1/apps', '/org/v1/apps', { token: member, json: { name: 'Onboarding' } });
      // §13: the document's own example registers an OAuth client with its key; another gives its keys' URL.
      const oauthApp = doc.paths['/org/v1/apps']!.post!.requestBody!.content['application/json']!.example;
      await answered('POST', '/org/v1/apps', '/org/v1/apps', { token: member, json: oauthApp });
      const byUrl = { name: 'Mobile', redirectUris: ['https://m.acme.example/cb'], jwksUri: 'https://m.acme.example/jwks.json' };
      await answered('POST', '/org/v1/apps', '/org/v1/apps', { token: member, json: byUrl });
      const { apps } = await get('/org/v1/apps', '/org/v1/apps', member);
      expect(apps.map((a: Record<string, unknown>) => Object.keys(a).length)).to.deep.equal([3, 5, 5]);
      const manifestBody = { name: 'KYC', purpose: 'To check who you are', retention: 'P90D', slots: [MANUAL_NAME_SLOT, PASSPORT_SLOT] };
      const { manifest } = await answered('POST', '/org/v1/manifests', '/org/v1/manifests', { token: member, json: manifestBody });
      const [nameSlot, passportSlot] = (manifest.slots as Array<{ slotId: string }>).map((s) => s.slotId);
      await get('/org/v1/manifests', '/org/v1/manifests', member);
      await get('/org/v1/manifests/{manifestId}', `/org/v1/manifests/${manifest.manifestId}?version=1`, member);

      // The person: a file in the vault, a document, and the request accepted with both.
      const ann = await api.user();
      const file = await answered('POST', '/vault/files', '/vault/files?fileName=passport.pdf&label=Passport', {
        token: ann.token,
        bytes: Buffer.from('%PDF-1'),
      });
      await answered('POST', '/vault/files/{fileId}/versions', `/vault/files/${file.fileId}/versions?fileName=passport.pdf`, {
        token: ann.token,
        bytes: Buffer.from('%PDF-2'),
      });
      await get('/vault/files/{fileId}', `/vault/files/${file.fileId}?version=1`, ann.token);
      const doc1 = await d.createDoc(ann, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
      const sent = await answered('POST', '/org/v1/requests', '/org/v1/requests', {
        token: member,
        json: { manifestId: manifest.manifestId, recipientEmail: ann.email },
      });
      const requestId = sent.request.requestId as string;
      const at = (rest = '') => `/org/v1/requests/${requestId}${rest}`;
      await d.accept(ann, requestId, { [nameSlot!]: [doc1], [passportSlot!]: [file.fileId as string] });
      await get('/org/v1/requests', `/org/v1/requests?email=${encodeURIComponent(ann.email)}&state=active`, member);
      await get('/org/v1/requests/{requestId}', at(), member);

      // Keep, read the copies, correct, the files.
      const kept = await answered('POST', '/org/v1/requests/{requestId}/slots/{slotId}/adopt', at(`/slots/${nameSlot}/adopt`), {
        token: member,
        json: {},
      });
      const [adoption] = kept.adoptions as Adoption[];
      const keptFile = await answered('POST', '/org/v1/requests/{requestId}/slots/{slotId}/adopt', at(`/slots/${passportSlot}/adopt`), {
        token: member,
      });
      const [fileAdoption] = keptFile.adoptions as Adoption[];
      const { copies } = await get('/org/v1/requests/{requestId}/copies', at('/copies'), member);
      const copy = (copies as Copy[]).find((c) => c.adoption.adoptionId === adoption!.adoptionId)!;
      await answered('POST', '/org/v1/requests/{requestId}/slots/{slotId}/correct', at(`/slots/${nameSlot}/correct`), {
        token: member,
        json: {
          sourceResourceId: adoption!.sourceResourceId,
          expectedSourceVersion: adoption!.sourceVersion,
          expectedOrgVersion: copy.currentOrgVersion,
          data: { givenName: 'Ann', familyName: 'Example-Smith' },
        },
      });
      await get('/org/v1/requests/{requestId}/copies/{adoptionId}/download', at(`/copies/${fileAdoption!.adoptionId}/download`), member);
      await answered('POST', '/org/v1/requests/{requestId}/files', at('/files?fileName=contract.pdf'), {
        token: member,
        bytes: Buffer.from('%PDF-contract'),
        contentType: 'application/pdf',
      });
      await get('/org/v1/requests/{requestId}/files', at('/files'), member);
      await answered('POST', '/org/v1/requests/{requestId}/adoptions/drain', at('/adoptions/drain'), { token: member });

      // The person publishes new versions: a proposal read and adopted, the next dismissed.
      const opened = async (): Promise<Proposal> => {
        for (let i = 0; i < 200; i++) {
          const { proposals } = await get('/org/v1/requests/{requestId}/proposals', at('/proposals'), member);
          if ((proposals as Proposal[]).length > 0) return (proposals as Proposal[])[0]!;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('no proposal opened');
      };
      await d.updateDoc(ann, doc1, { givenName: 'Ann', familyName: 'Example', middleName: 'Marie' });
      const first = await opened();
      const proposal = (rest: string) => at(`/proposals/${first.proposalId}${rest}`);
      await get('/org/v1/requests/{requestId}/proposals/{proposalId}/candidate', proposal('/candidate'), member);
      await answered('POST', '/org/v1/requests/{requestId}/proposals/{proposalId}/adopt', proposal('/adopt'), { token: member });
      await d.updateDoc(ann, doc1, { givenName: 'Ann', familyName: 'Example' });
      const second = await opened();
      const dismissed = await answered(
        'POST',
        '/org/v1/requests/{requestId}/proposals/{proposalId}/dismiss',
        at(`/proposals/${second.proposalId}/dismiss`),
        { token: member },
      );
      expect(dismissed.dismissed).to.equal(true);

      // The audit history, a copy deleted, the person's archive.
      await get('/org/v1/requests/{requestId}/history', at('/history?limit=500'), member);
      await get('/org/v1/requests/{requestId}/receipts', at('/receipts'), member);
      await answered('DELETE', '/org/v1/requests/{requestId}/copies/{adoptionId}', at(`/copies/${fileAdoption!.adoptionId}`), {
        token: member,
      });
      await get('/vault/export', '/vault/export', ann.token);

      // A new manifest version; a second request, cancelled.
      await answered('POST', '/org/v1/manifests/{manifestId}/versions', `/org/v1/manifests/${manifest.manifestId}/versions`, {
        token: member,
        json: { purpose: 'To check who you are, again', retention: 'P30D', slots: [MANUAL_NAME_SLOT] },
      });
      const another = await answered('POST', '/org/v1/requests', '/org/v1/requests', {
        token: member,
        json: { manifestId: manifest.manifestId, recipientEmail: `carl-${Math.random().toString(36).slice(2)}@example.com` },
      });
      await answered('POST', '/org/v1/requests/{requestId}/cancel', `/org/v1/requests/${another.request.requestId}/cancel`, {
        token: member,
      });

      // The events feed (contract §12): what all of the above told the organization.
      await get('/org/v1/events', '/org/v1/events?limit=1000', member);

      // Webhooks (contract §12): one on loopback, its test event delivered, logged and sent again, then deleted.
      const { webhook } = await answered('POST', '/org/v1/webhooks', '/org/v1/webhooks', {
        token: member,
        json: { url: hook.url, eventTypes: ['request.sent'], description: 'Our CRM' },
      });
      const hookPath = `/org/v1/webhooks/${webhook.webhookId}`;
      await get('/org/v1/webhooks', '/org/v1/webhooks', member);
      const { eventId } = await answered('POST', '/org/v1/webhooks/{webhookId}/test', `${hookPath}/test`, { token: member });
      for (const deadline = Date.now() + 10_000; hook.received.length === 0 && Date.now() < deadline;)
        await new Promise((r) => setTimeout(r, 50));
      await get('/org/v1/webhooks/{webhookId}/deliveries', `${hookPath}/deliveries`, member);
      await answered('POST', '/org/v1/webhooks/{webhookId}/deliveries/{eventId}/retry', `${hookPath}/deliveries/${eventId}/retry`, {
        token: member,
      });
      await answered('DELETE', '/org/v1/webhooks/{webhookId}', hookPath, { token: member });

      // Last: sealing the key and signing out end what the calls above need.
      await answered('POST', '/org/v1/key/seal', '/org/v1/key/seal', { token: member });
      await answered('POST', '/auth/sign-out', '/auth/sign-out', { token: user });

      const answering = operations(doc).filter(({ op }) => Object.keys(op.responses).some((s) => /^2\d\d$/.test(s)));
      // test/partner's flows check the OAuth and partner-plane answers against the document (documentedAnswers).
      const elsewhere = (key: string) => OPERATIONS_CHECKED_ELSEWHERE.has(key) || PARTNER_SIGN_IN_OPERATIONS.has(key);
      expect(answering.map((o) => o.key).filter((key) => !covered.has(key) && !elsewhere(key))).to.deep.equal([]);
    });
  });
});
