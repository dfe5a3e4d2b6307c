import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { openApiDocument } from '../../../src/api/openapi/document.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { fileClient } from '../files/file-client.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type Manifest, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

type Parameter = { readonly name: string; readonly in: string; readonly required?: boolean };
type Operation = {
  readonly security?: ReadonlyArray<Record<string, unknown>>;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content: Readonly<Record<string, unknown>> };
};
type Route = { readonly key: string; readonly method: string; readonly path: string; readonly op: Operation };

/** Every REST operation the document lists; GraphQL types its own input. */
const routes: Route[] = Object.entries(openApiDocument.paths as unknown as Record<string, Record<string, Operation>>)
  .filter(([path]) => path !== '/graphql')
  .flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op })),
  );
const takesJson = (r: Route) => r.op.requestBody?.content['application/json'] !== undefined;
const takesBytes = (r: Route) => r.op.requestBody?.content['*/*'] !== undefined;
const takesToken = (r: Route) => (r.op.security ?? []).some((s) => Object.keys(s).length > 0);

type Reply = { status: number; body: Record<string, unknown> };

describe(`§10.3 unknown fields are refused (${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let owner: User;
  let member: string;
  let manifest: Manifest;
  let requestId: string;
  let fileId: string;
  let webhookId: string;
  const d = driver({ api: () => api, member: () => member, log: () => service.db });

  /** A body each JSON route takes as it is: the test adds one field the route does not define. */
  const bodies = (): Readonly<Record<string, Record<string, unknown>>> => ({
    'POST /auth/send-otp': { email: owner.email },
    'POST /auth/verify-otp': { email: owner.email, code: '000000' },
    'POST /auth/verify-email/send': { email: `other-${owner.email}` },
    'POST /auth/verify-email/confirm': { email: `other-${owner.email}`, code: '000000' },
    'POST /org/v1/organizations': { name: 'Beta' },
    'POST /org/v1/token': { organizationId: randomUUID() },
    'PUT /org/v1/members/{email}': { permissions: ['request_read'] },
    'POST /org/v1/apps': { name: 'Intake' },
    'POST /org/v1/manifests': { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [MANUAL_NAME_SLOT] },
    'POST /org/v1/manifests/{manifestId}/versions': { purpose: 'To check who you are', retention: 'P30D', slots: [MANUAL_NAME_SLOT] },
    'POST /org/v1/requests': { manifestId: manifest.manifestId, recipientEmail: 'someone@example.com' },
    'POST /org/v1/requests/{requestId}/slots/{slotId}/adopt': {},
    'POST /org/v1/requests/{requestId}/slots/{slotId}/correct': { expectedSourceVersion: 1, expectedOrgVersion: 1, data: {} },
    'POST /org/v1/webhooks': { url: 'https://hooks.acme.example/', eventTypes: ['key.warmed'] },
    'POST /oauth/interaction/{uid}/finish': { requestId: randomUUID() },
    'POST /oauth/partner-sign-in/complete': { callback: 'code=c&state=s' },
    'POST /oauth/partner-sign-in/link': { email: 'ann@example.com', code: '123456' },
  });

  function target(route: Route, query: Record<string, string>): string {
    const ids: Record<string, string> = {
      requestId,
      slotId: manifest.slots[0]!.slotId,
      manifestId: manifest.manifestId,
      fileId,
      email: 'bob@example.com',
      adoptionId: randomUUID(),
      proposalId: randomUUID(),
      webhookId,
      eventId: randomUUID(),
      uid: 'no-authorization-in-progress',
      resourceId: randomUUID(),
    };
    const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(ids[name]!));
    const required = Object.fromEntries(
      (route.op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => [p.name, p.name === 'fileName' ? 'a.txt' : 'x']),
    );
    const search = new URLSearchParams({ ...required, ...query }).toString();
    return search ? `${path}?${search}` : path;
  }

  async function call(route: Route, o: { body?: unknown; query?: Record<string, string> } = {}): Promise<Reply> {
    const token = (route.op.security ?? []).flatMap((s) => Object.keys(s)).includes('orgToken') ? member : owner.token;
    const headers: Record<string, string> = takesToken(route) ? { authorization: `Bearer ${token}` } : {};
    let body: string | undefined;
    if (takesBytes(route)) {
      headers['content-type'] = 'application/octet-stream';
      body = 'bytes';
    } else if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.body);
    }
    const res = await fetch(`${service.url}${target(route, o.query ?? {})}`, { method: route.method, headers, body });
    const text = await res.text();
    return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as Reply['body']) : {} };
  }

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    owner = await api.user();
    member = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    manifest = await d.manifest([MANUAL_NAME_SLOT]);
    requestId = await d.send(manifest.manifestId, owner.email);
    fileId = String((await fileClient(service.url).upload(owner.token, { fileName: 'a.txt' }, Buffer.from('a'))).json.fileId);
    const webhook = await api.post('/org/v1/webhooks', member, { url: 'https://hooks.acme.example/', eventTypes: ['key.warmed'] });
    webhookId = (webhook.body.webhook as { webhookId: string }).webhookId;
  });
  after(() => service?.close());

  const expectRefusedNaming = (r: Reply, name: string) => {
    expect(r.status, JSON.stringify(r.body)).to.equal(400);
    expect(r.body.code).to.equal('invalid_request');
    expect(r.body.detail).to.be.a('string').that.includes(name);
  };

  it('a misspelt invitationExpiresAt answers 400 naming it: no request is sent and no invitation mailed', async () => {
    const mails = mailer.sent.length;
    let reply: Awaited<ReturnType<OrgClient['post']>> | undefined;
    const appended = await d.appended(async () => {
      reply = await api.post('/org/v1/requests', member, {
        manifestId: manifest.manifestId,
        recipientEmail: 'ann@example.com',
        invitationExpiresAT: '2099-01-01T00:00:00Z',
      });
    });
    expectRefusedNaming({ status: reply!.status, body: reply!.body }, 'invitationExpiresAT');
    expect(appended).to.deep.equal([]);
    expect(mailer.sent.length).to.equal(mails);
  });

  it('a field a slot does not define is named by its path in the body', async () => {
    const r = await api.post('/org/v1/manifests', member, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [MANUAL_NAME_SLOT, { ...MANUAL_NAME_SLOT, lable: 'Name' }],
    });
    expectRefusedNaming({ status: r.status, body: r.body }, 'slots[1].lable');
  });

  it('every JSON route has a body here to try', () => {
    expect(routes.filter(takesJson).map((r) => r.key)).to.have.members(Object.keys(bodies()));
  });

  for (const route of routes.filter(takesJson)) {
    it(`${route.key}: a body field it does not define answers 400 invalid_request naming it, and writes nothing`, async () => {
      let reply: Reply | undefined;
      const appended = await d.appended(async () => {
        reply = await call(route, { body: { ...bodies()[route.key], bogusField: true } });
      });
      expectRefusedNaming(reply!, 'bogusField');
      expect(appended).to.deep.equal([]);
    });
  }

  for (const route of routes.filter((r) => takesJson(r) || takesBytes(r) || takesToken(r))) {
    it(`${route.key}: a query parameter it does not define answers 400 invalid_request naming it, and writes nothing`, async () => {
      let reply: Reply | undefined;
      const appended = await d.appended(async () => {
        reply = await call(route, { body: bodies()[route.key], query: { bogusField: '1' } });
      });
      expectRefusedNaming(reply!, 'bogusField');
      expect(appended).to.deep.equal([]);
    });
  }
});
