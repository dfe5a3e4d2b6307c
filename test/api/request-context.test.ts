import { expect } from 'chai';
import type { Express } from 'express';
import { jsonBody } from '../../src/api/middleware/json-body.js';
import { eventContext } from '../../src/api/request-context.js';
import { mainBackend } from '../support/databases.js';
import { startTestService, type TestService } from './support/service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function testRoutes(app: Express): void {
  app.post('/commands/:target', jsonBody(), (req, res) => {
    res.json(eventContext(req, { kind: 'user', id: 'identity-1' }, new Date('2025-01-02T03:04:05.678Z')));
  });
}

describe(`request and correlation ids (style: log with context, never personal data; ${mainBackend})`, function () {
  let s: TestService;
  before(async () => {
    s = await startTestService({ routes: testRoutes });
  });
  after(async () => {
    await s.close();
  });

  const post = (headers: Record<string, string> = {}, path = '/commands/x') =>
    fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

  it('generates a UUID request id, echoes it, and uses it as the correlation id when none came in', async () => {
    const res = await post();
    const requestId = res.headers.get('x-request-id');
    expect(requestId).to.match(UUID);
    expect(res.headers.get('x-correlation-id')).to.equal(requestId);
    expect(await res.json()).to.include({ correlationId: requestId, causationId: requestId });
  });

  it('honours sane incoming ids and replaces anything else', async () => {
    const honoured = await post({ 'x-request-id': 'lb-7f3a.2', 'x-correlation-id': 'checkout_42' });
    expect(honoured.headers.get('x-request-id')).to.equal('lb-7f3a.2');
    expect(honoured.headers.get('x-correlation-id')).to.equal('checkout_42');

    for (const bad of ['has space', 'x'.repeat(129), 'quote"d', 'a:b', 'line%0Abreak', 'a, b']) {
      const res = await post({ 'x-request-id': bad, 'x-correlation-id': bad });
      const requestId = res.headers.get('x-request-id');
      expect(requestId, bad).to.match(UUID);
      expect(res.headers.get('x-correlation-id'), bad).to.equal(requestId);
    }
  });

  it('builds the event metadata of a command from the request (EventContext)', async () => {
    const res = await post({ 'x-request-id': 'req-1', 'x-correlation-id': 'corr-1' });
    expect(await res.json()).to.deep.equal({
      occurredAt: '2025-01-02T03:04:05.678Z',
      actor: { kind: 'user', id: 'identity-1' },
      correlationId: 'corr-1',
      causationId: 'req-1',
    });
  });

  it('logs each request with both ids and the route template, never headers, bodies, emails or codes', async () => {
    const secretToken = 'eyJhbGciOiJFZERTQSJ9.secret-token-payload.sig';
    const res = await fetch(`${s.url}/commands/alice%40example.com?email=bob@example.com&code=246810`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${secretToken}`,
        cookie: 'sid=cookie-secret',
        'x-request-id': 'log-check-1',
        'x-correlation-id': 'log-corr-1',
      },
      body: JSON.stringify({ email: 'carol@example.com', code: '135790' }),
    });
    expect(res.status).to.equal(200);
    const line = await s.waitForLog((l) => l.requestId === 'log-check-1');
    expect(line).to.include({ correlationId: 'log-corr-1', route: '/commands/:target', msg: 'request completed' });
    expect(line.res).to.deep.equal({ statusCode: 200 });
    const text = s.logText();
    for (const secret of [secretToken, 'Bearer', 'cookie-secret', 'alice', 'bob@', 'carol@', '246810', '135790', 'example.com']) {
      expect(text, secret).not.to.contain(secret);
    }
  });
});
