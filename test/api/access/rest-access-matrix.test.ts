import { MANUAL_NAME_SLOT } from '../support/consent-scenario.js';
import { expect } from 'chai';
import { openApiDocument } from '../../../src/api/openapi/document.js';
import { mainBackend } from '../../support/databases.js';
import type { Reply } from '../../support/http.js';
import type { RegisteredRoute } from '../support/registered-routes.js';
import { PERMISSIONS, type Permission } from '../../../src/events/organization-events.js';
import { accessWorld, type AccessWorld, type BadToken, type Ids } from './access-world.js';
import { leaks } from './leaks.js';

type Operation = {
  readonly security?: ReadonlyArray<Readonly<Record<string, readonly string[]>>>;
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string; readonly required?: boolean }>;
  readonly requestBody?: { readonly required?: boolean; readonly content: Readonly<Record<string, unknown>> };
};
type Guard =
  | { readonly kind: 'public' }
  | { readonly kind: 'user' }
  | { readonly kind: 'member'; readonly permission: Permission }
  | { readonly kind: 'app' };
type Route = { readonly key: string; readonly guard: Guard; readonly build: (ids: Ids) => Call };
type Call = { readonly method: string; readonly url: string; readonly body?: string | Blob; readonly contentType?: string };

const slot = MANUAL_NAME_SLOT;

/**
 * What a route needs beyond its path: the JSON body, or the query, of a request that would pass
 * the route's own validation. A route that takes a body and is missing here fails the matrix.
 */
const inputs: Readonly<Record<string, (ids: Ids) => { body?: unknown; query?: Record<string, string> }>> = {
  'POST /auth/send-otp': () => ({ body: { email: 'someone@example.com' } }),
  'POST /auth/verify-otp': () => ({ body: { email: 'someone@example.com', code: '000000' } }),
  'POST /auth/verify-email/send': () => ({ body: { email: 'second@example.com' } }),
  'POST /auth/verify-email/confirm': () => ({ body: { email: 'second@example.com', code: '000000' } }),
  'POST /graphql': () => ({ body: { query: '{ user { me { email } } }' } }),
  'POST /org/v1/organizations': () => ({ body: { name: 'Another' } }),
  'POST /org/v1/token': (ids) => ({ body: { organizationId: ids.organizationId } }),
  'PUT /org/v1/members/{email}': () => ({ body: { permissions: ['request_read'] } }),
  'POST /org/v1/apps': () => ({ body: { name: 'App' } }),
  'POST /org/v1/manifests': () => ({ body: { name: 'M', purpose: 'To check who you are', retention: 'P1D', slots: [slot] } }),
  'POST /org/v1/manifests/{manifestId}/versions': () => ({ body: { purpose: 'To check who you are', retention: 'P1D', slots: [slot] } }),
  'POST /org/v1/requests': (ids) => ({ body: { manifestId: ids.manifestId, recipientEmail: 'someone@example.com' } }),
  'POST /org/v1/requests/{requestId}/slots/{slotId}/correct': () => ({
    body: { expectedSourceVersion: 1, expectedOrgVersion: 1, data: { givenName: 'Pat', familyName: 'Roe' } },
  }),
  'POST /vault/files': (ids) => ({ query: { fileName: 'scan.pdf', owner: ids.entityId } }),
  'POST /org/v1/webhooks': () => ({ body: { url: 'https://hooks.example/dss', eventTypes: ['key.warmed'] } }),
  'POST /oauth/interaction/{uid}/finish': (ids) => ({ body: { requestId: ids.requestId } }),
  'POST /oauth/partner-sign-in/complete': () => ({ body: { callback: 'code=c&state=s' } }),
  'POST /oauth/partner-sign-in/link': () => ({ body: { email: 'ann@example.com', code: '123456' } }),
};
const REQUIRED_QUERY: Readonly<Record<string, string>> = { fileName: 'scan.pdf' };
const PATH_VALUES: Readonly<Record<string, (ids: Ids) => string>> = {
  requestId: (ids) => ids.requestId,
  manifestId: (ids) => ids.manifestId,
  slotId: (ids) => ids.slotId,
  adoptionId: (ids) => ids.adoptionId,
  proposalId: (ids) => ids.proposalId,
  fileId: (ids) => ids.fileId,
  email: (ids) => ids.email,
  webhookId: (ids) => ids.webhookId,
  eventId: (ids) => ids.eventId,
  file: () => 'PersonFullName.json',
  code: () => 'not_found',
  uid: () => 'no-authorization-in-progress',
  resourceId: (ids) => ids.documentId,
};

const paths = openApiDocument.paths as unknown as Record<string, Record<string, Operation>>;

/** The document's word on who may call a route; anything else is a route in neither category. */
function guardOf(key: string, op: Operation): Guard {
  const security = op.security;
  if (!security) return { kind: 'public' };
  if (security.some((s) => 'userToken' in s)) return { kind: 'user' };
  // Contract §13: the partner plane takes an app's DPoP-bound access token, never a user's or a member's.
  if (security.some((s) => 'partnerToken' in s)) return { kind: 'app' };
  const [only] = security;
  const permission = only?.orgToken?.[0];
  if (security.length === 1 && permission && (PERMISSIONS as readonly string[]).includes(permission))
    return { kind: 'member', permission: permission as Permission };
  throw new Error(`${key}: security ${JSON.stringify(security)} is neither public, a user token nor a member permission`);
}

function routeOf(served: RegisteredRoute): Route {
  const method = served.method === 'ALL' ? 'GET' : served.method;
  const key = `${method} ${served.path}`;
  const op = paths[served.path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${key} is served but not in the OpenAPI document, so the matrix cannot tell who may call it`);
  const guard = guardOf(key, op);
  const raw = op.requestBody && !('application/json' in op.requestBody.content);
  const input = inputs[key];
  if (op.requestBody?.required && !raw && !input) throw new Error(`${key} takes a JSON body: add one to the matrix's inputs`);
  return {
    key,
    guard,
    build: (ids) => {
      const path = served.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
        const value = PATH_VALUES[name];
        if (!value) throw new Error(`${key}: no value for path parameter ${name}`);
        return encodeURIComponent(value(ids));
      });
      const given = input?.(ids) ?? {};
      const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => p.name);
      const query = { ...Object.fromEntries(required.map((n) => [n, REQUIRED_QUERY[n] ?? 'x'])), ...given.query };
      const url = Object.keys(query).length ? `${path}?${new URLSearchParams(query)}` : path;
      if (raw) return { method, url, body: new Blob(['%PDF-1.4 bytes']), contentType: 'application/pdf' };
      if (op.requestBody) return { method, url, body: JSON.stringify(given.body ?? {}), contentType: 'application/json' };
      return { method, url };
    },
  };
}

describe(`access matrix: every REST route × every kind of token (contract 0, 1, 2, 8; R-ACC-01 to R-ACC-06; ${mainBackend})`, function () {
  this.timeout(120_000);
  let world: AccessWorld;
  let routes: Route[];

  before(async () => {
    world = await accessWorld();
    routes = world.routes.map(routeOf);
  });
  after(() => world?.close());

  async function send(call: Call, token: string | undefined): Promise<Reply> {
    const res = await fetch(`${world.service.url}${call.url}`, {
      method: call.method,
      headers: {
        ...(call.contentType ? { 'content-type': call.contentType } : {}),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      ...(call.body === undefined ? {} : { body: call.body }),
    });
    const text = await res.text();
    const json = /^application\/(problem\+)?json/.test(res.headers.get('content-type') ?? '') && text;
    return { status: res.status, headers: res.headers, body: json ? (JSON.parse(text) as Record<string, unknown>) : { text } };
  }

  /**
   * Calls each route with its token and collects every answer that is not the refusal expected,
   * or that is not problem+json, leaks internals, or moved the log: one list of every defect.
   */
  async function refusals(
    cases: ReadonlyArray<{ route: Route; label: string; token: string | undefined; ids: Ids }>,
    status: number,
    code: string,
  ) {
    const wrong: string[] = [];
    for (const { route, label, token, ids } of cases) {
      const before = await world.head();
      const r = await send(route.build(ids), token);
      const where = `${route.key} with ${label}`;
      if (r.status !== status || r.body.code !== code) wrong.push(`${where}: ${r.status} ${String(r.body.code)}`);
      else if (!/^application\/problem\+json/.test(r.headers.get('content-type') ?? '')) wrong.push(`${where}: not problem+json`);
      const leak = leaks(r.body);
      if (leak) wrong.push(`${where}: the body shows ${leak}`);
      const caused = await world.appendedBy(before, r.headers.get('x-request-id'));
      if (caused.length > 0) wrong.push(`${where}: the refused call appended ${caused.join(', ')} to the log`);
    }
    return wrong;
  }

  const of = (kind: Guard['kind']) => routes.filter((r) => r.guard.kind === kind);
  const permissionOf = (route: Route): Permission => (route.guard.kind === 'member' ? route.guard.permission : 'request_read');
  /**
   * A route names ids when the same call for another side's ids is another request. An address
   * names a person, who may be a member anywhere: not an id of one side.
   */
  const namesIds = (route: Route) =>
    JSON.stringify(route.build(world.acme.ids)) !== JSON.stringify(route.build({ ...world.rival.ids, email: world.acme.ids.email }));
  const each = (list: Route[], tokens: readonly BadToken[], ids: Ids) =>
    list.flatMap((route) => tokens.map((t) => ({ route, label: t.name, token: t.token, ids })));

  it('every route the app serves is public, a user route, a member route naming its permission, or an app’s (the partner plane)', function () {
    const kinds = routes.map((r) => r.guard.kind);
    expect(new Set(kinds)).to.deep.equal(new Set(['public', 'user', 'member', 'app']));
    expect(of('app').map((r) => r.key)).to.have.members(['GET /partner/v1/connection', 'GET /partner/v1/records/{resourceId}']);
    expect(of('member').map((r) => r.key)).to.include('DELETE /org/v1/requests/{requestId}/copies/{adoptionId}');
    expect(of('user').map((r) => r.key)).to.include.members(['GET /vault/files/{fileId}', 'POST /graphql', 'POST /org/v1/token']);
  });

  it('a missing, malformed, forged, expired, revoked or wrong-audience token is 401 unauthenticated on every user and member route, writing nothing', async function () {
    const wrong = [
      ...(await refusals(each(of('user'), world.refusedUser, world.acme.ids), 401, 'unauthenticated')),
      ...(await refusals(each(of('member'), world.refusedMember, world.acme.ids), 401, 'unauthenticated')),
    ];
    expect(wrong).to.deep.equal([]);
  });

  it('no token, and a user’s or a member’s live bearer token, is 401 unauthenticated on every app route (the partner plane), writing nothing', async function () {
    const tokens = [
      { name: 'no token', token: undefined },
      { name: 'a live user token', token: world.acme.user },
      { name: 'a live member token', token: world.acme.member },
    ];
    expect(await refusals(each(of('app'), tokens, world.acme.ids), 401, 'unauthenticated')).to.deep.equal([]);
  });

  it("a removed member's token is 401 unauthenticated on every member route from the next request, even once they are added again", async function () {
    const tokens = [
      { name: 'a removed member', token: world.removedMember },
      { name: 'a member removed and added again, with a token of the ended membership', token: world.readdedMember },
    ];
    expect(await refusals(each(of('member'), tokens, world.acme.ids), 401, 'unauthenticated')).to.deep.equal([]);
  });

  it("a member of the organization lacking the route's documented permission is 403 forbidden on every member route, writing nothing", async function () {
    const cases = of('member').map((route) => ({
      route,
      label: `a member without ${permissionOf(route)}`,
      token: world.lacking.get(permissionOf(route)),
      ids: world.acme.ids,
    }));
    expect(await refusals(cases, 403, 'forbidden')).to.deep.equal([]);
  });

  it("another organization's member token on this organization's ids is 404 not_found on every member route naming one, writing nothing", async function () {
    const naming = of('member').filter(namesIds);
    expect(naming.length, 'member routes naming an id').to.be.greaterThan(15);
    expect(
      await refusals(each(naming, [{ name: "Rival's member token", token: world.rival.member }], world.acme.ids), 404, 'not_found'),
    ).to.deep.equal([]);
    // Rival's own request, with Acme's slot, copy or proposal under it: the inner id is foreign too.
    const inner = { ...world.acme.ids, requestId: world.rival.ids.requestId, manifestId: world.rival.ids.manifestId };
    const nested = naming.filter((r) => JSON.stringify(r.build(inner)) !== JSON.stringify(r.build(world.rival.ids)));
    expect(nested.length, 'routes naming an id under a request').to.be.greaterThan(5);
    expect(
      await refusals(each(nested, [{ name: "Rival's token on Rival's request", token: world.rival.member }], inner), 404, 'not_found'),
    ).to.deep.equal([]);
    // Routes naming an address act on the caller's own organization: Acme's member stays Acme's.
    const acmeMembers = async () => (await world.api.get('/org/v1/members', world.acme.member)).body;
    const members = await acmeMembers();
    expect((await world.api.del(`/org/v1/members/${world.acme.ids.email}`, world.rival.member)).status).to.equal(404);
    expect(await acmeMembers()).to.deep.equal(members);
  });

  it("another user's ids, or a legal entity's to one removed from it, are 404 not_found on every user route naming one, writing nothing", async function () {
    const naming = of('user').filter(namesIds);
    expect(naming.map((r) => r.key)).to.include.members(['GET /vault/files/{fileId}', 'POST /org/v1/token']);
    const strangers = [
      { name: "Rival's founder's token", token: world.rival.user },
      { name: 'the token of a manager removed from the legal entity', token: world.removedFromEntity },
    ];
    expect(await refusals(each(naming, strangers, world.acme.ids), 404, 'not_found')).to.deep.equal([]);
  });

  it("a MEMBER of a legal entity is 403 forbidden on every user route changing the entity's files, writing nothing", async function () {
    const others = { ...world.acme.ids, entityId: 'x', fileId: 'x' };
    const changing = of('user').filter(
      (r) => r.build(world.acme.ids).method !== 'GET' && JSON.stringify(r.build(world.acme.ids)) !== JSON.stringify(r.build(others)),
    );
    expect(changing.map((r) => r.key)).to.include.members(['POST /vault/files', 'POST /vault/files/{fileId}/versions']);
    const cases = each(changing, [{ name: 'a MEMBER of the entity', token: world.entityMember }], world.acme.ids);
    expect(await refusals(cases, 403, 'forbidden')).to.deep.equal([]);
  });

  it("what another organization or user reads on routes naming no id holds none of this side's ids", async function () {
    // An app route reads only what its own grant names (test/partner); no side's token reaches it at all.
    const reads = routes.filter(
      (r) => (r.guard.kind === 'user' || r.guard.kind === 'member') && !namesIds(r) && r.build(world.acme.ids).method === 'GET',
    );
    expect(reads.length).to.be.greaterThan(3);
    const secrets = Object.values(world.acme.ids).filter((id) => id !== world.acme.ids.email);
    for (const route of reads) {
      const r = await send(route.build(world.rival.ids), route.guard.kind === 'member' ? world.rival.member : world.rival.user);
      expect(r.status, `${route.key}: ${JSON.stringify(r.body)}`).to.equal(200);
      const body = JSON.stringify(r.body);
      expect(
        secrets.filter((id) => body.includes(id)),
        route.key,
      ).to.deep.equal([]);
    }
  });

  it('public routes answer any token, however made, without a 500 or a leak', async function () {
    const wrong: string[] = [];
    for (const route of of('public')) {
      for (const t of [...world.refusedUser, ...world.refusedMember]) {
        const r = await send(route.build(world.acme.ids), t.token);
        if (r.status >= 500) wrong.push(`${route.key} with ${t.name}: ${r.status}`);
        const leak = leaks(r.body);
        if (leak) wrong.push(`${route.key} with ${t.name}: the body shows ${leak}`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  // Last: these calls succeed, and some of them seal the key, remove a member or shred a copy.
  it("a member holding only the route's documented permission gets past the guard on every member route", async function () {
    const wrong: string[] = [];
    const before = await world.head();
    const caused: string[] = [];
    for (const route of of('member')) {
      const head = await world.head();
      const r = await send(route.build(world.acme.ids), world.holdingOnly.get(permissionOf(route)));
      caused.push(...(await world.appendedBy(head, r.headers.get('x-request-id'))));
      if ([401, 403].includes(r.status) && r.body.code !== 'adoption_refused' && r.body.code !== 'participant_ineligible')
        wrong.push(`${route.key}: ${r.status} ${String(r.body.code)}`);
      if (r.status >= 500) wrong.push(`${route.key}: ${r.status}`);
    }
    expect(wrong).to.deep.equal([]);
    expect(await world.head(), 'the log moves when a call writes').to.not.equal(before);
    expect(caused, "a call's events are known by its request id (the refusal cases look for them so)").to.not.deep.equal([]);
  });
});
