import { expect } from 'chai';
import type { Express } from 'express';
import { refuse, type RefusalCode, type TransportCode } from '../../src/commands/refusal.js';
import { jsonBody } from '../../src/api/middleware/json-body.js';
import { sendRefusal } from '../../src/api/refusals.js';
import { mainBackend } from '../support/databases.js';
import { startTestService, type TestService } from './support/service.js';

const MiB = 1024 * 1024;

/** Routes standing in for the domain's: a JSON command, a thrower and a refuser. */
function testRoutes(app: Express): void {
  app.post('/things', jsonBody(), (req, res) => {
    res.json({ received: typeof req.body === 'object' && req.body !== null ? Object.keys(req.body as object).length : 0 });
  });
  app.get('/boom', () => {
    throw Object.assign(
      new Error(
        'relation "rm.secret_table" does not exist: SELECT * FROM rm.secret_table ' +
          'at /work/main/src/boom.ts:12, key (email)=(dup@example.com)',
      ),
      {
        detail: 'Key (email)=(dup@example.com) already exists.',
      },
    );
  });
  app.get('/refuse/:code', (req, res) => {
    const retry = req.query.retryAfter;
    sendRefusal(res, refuse(req.params.code as RefusalCode, `refused with ${req.params.code}`, retry ? Number(retry) : undefined));
  });
  app.get('/next-refusal', (_req, _res, next) => next(refuse('version_conflict', 'the copy moved')));
}

async function expectProblem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  expect(res.status, `status of ${code}`).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).to.include({ status, code });
  expect(body.type).to.equal(`http://service.test/problems/${code}`);
  expect(body.title).to.be.a('string').with.length.greaterThan(0);
  expect(body.detail).to.be.a('string').with.length.greaterThan(0);
  return body;
}

describe(`errors are RFC 9457 problem details (contract §0, ${mainBackend})`, function () {
  let s: TestService;
  before(async () => {
    s = await startTestService({ routes: testRoutes });
  });
  after(async () => {
    await s.close();
  });

  const postJson = (body: string, contentType = 'application/json') =>
    fetch(`${s.url}/things`, { method: 'POST', headers: { 'content-type': contentType }, body });

  it('malformed JSON answers 400 invalid_request', async () => {
    await expectProblem(await postJson('{"name": '), 400, 'invalid_request');
  });

  it('a JSON body over 1 MiB answers 413 payload_too_large; one just under passes', async () => {
    const over = JSON.stringify({ pad: 'x'.repeat(MiB) });
    await expectProblem(await postJson(over), 413, 'payload_too_large');
    const under = JSON.stringify({ pad: 'x'.repeat(MiB - 100) });
    expect((await postJson(under)).status).to.equal(200);
  });

  it('a body of another type on a JSON route answers 415 unsupported_media_type; no body needs no type', async () => {
    await expectProblem(await postJson('name=x', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
    await expectProblem(await postJson('{"a":1}', 'text/plain'), 415, 'unsupported_media_type');
    expect((await fetch(`${s.url}/things`, { method: 'POST' })).status).to.equal(200);
    expect((await postJson('{"a":1}', 'application/merge-patch+json')).status).to.equal(200);
  });

  it('an unknown route answers 404 not_found', async () => {
    await expectProblem(await fetch(`${s.url}/no/such/route`), 404, 'not_found');
    await expectProblem(await fetch(`${s.url}/things`, { method: 'DELETE' }), 404, 'not_found');
  });

  it('an unexpected error answers 500 with a generic detail: no message, stack, SQL or path', async () => {
    const res = await fetch(`${s.url}/boom`, { headers: { 'x-request-id': 'boom-request-1' } });
    const text = await res.clone().text();
    const body = await expectProblem(res, 500, 'internal_error');
    for (const leak of ['secret_table', 'SELECT', '/work/', 'boom.ts', 'at ', 'Error']) expect(text).not.to.contain(leak);
    expect(body.requestId).to.equal('boom-request-1');
    // The operator gets it all, under the request id the client can quote.
    const line = await s.waitForLog((l) => l.requestId === 'boom-request-1');
    expect(line.level).to.equal(50);
    expect(JSON.stringify(line.err)).to.contain('secret_table');
    // ...but no personal data a driver quoted into the error.
    expect(JSON.stringify(line)).not.to.contain('dup@example.com');
  });

  // Contract §0 and §8; written out here so that the table in src/api/refusals.ts cannot drift.
  const statuses: Record<RefusalCode | TransportCode, number> = {
    invalid_request: 400,
    invalid_email: 400,
    unsupported_item: 400,
    invalid_code: 401,
    unauthenticated: 401,
    forbidden: 403,
    participant_ineligible: 403,
    adoption_refused: 403,
    not_found: 404,
    conflict: 409,
    version_conflict: 409,
    payload_too_large: 413,
    unsupported_media_type: 415,
    org_sealed: 423,
    rate_limited: 429,
    too_many_attempts: 429,
    email_unavailable: 503,
    projection_stalled: 503,
    service_unavailable: 503,
    // Document refusals travel as GraphQL errors; over REST they would be these.
    no_schema_definition: 400,
    both_schema_definitions: 400,
    schema_not_found: 400,
    schema_invalid: 400,
    data_invalid: 400,
    document_schema_exists: 409,
  };
  for (const [code, status] of Object.entries(statuses)) {
    it(`a ${code} refusal answers ${status} with code ${code}`, async () => {
      const body = await expectProblem(await fetch(`${s.url}/refuse/${code}`), status, code);
      expect(body.detail).to.equal(`refused with ${code}`);
    });
  }

  it('every 429 carries Retry-After in seconds', async () => {
    const given = await fetch(`${s.url}/refuse/rate_limited?retryAfter=42`);
    expect(given.status).to.equal(429);
    expect(given.headers.get('retry-after')).to.equal('42');
    const fractional = await fetch(`${s.url}/refuse/too_many_attempts?retryAfter=0.2`);
    expect(fractional.headers.get('retry-after')).to.equal('1');
    const unsaid = await fetch(`${s.url}/refuse/too_many_attempts`);
    expect(Number(unsaid.headers.get('retry-after'))).to.be.at.least(1);
  });

  it('a refusal passed to next() answers like one sent', async () => {
    await expectProblem(await fetch(`${s.url}/next-refusal`), 409, 'version_conflict');
  });
});
