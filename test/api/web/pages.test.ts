import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { mainBackend } from '../../support/databases.js';
import { webPages } from '../../../src/api/web/pages.js';
import { builtPages } from '../../web/support/built-pages.js';
import { startTestService, type TestService } from '../support/service.js';

const ORG = '5f0c8a0e-3b1c-4b8e-9d39-0a7d2c1e4f10';
/** Every path of contract §11, each the app's index.html. */
const PAGES = [
  '/',
  '/sign-in',
  '/requests',
  '/requests/5f0c8a0e-3b1c-4b8e-9d39-0a7d2c1e4f11',
  '/vault',
  '/account',
  `/org/${ORG}/requests`,
  `/org/${ORG}/requests/5f0c8a0e-3b1c-4b8e-9d39-0a7d2c1e4f11`,
  `/org/${ORG}/manifests`,
  `/org/${ORG}/members`,
  `/org/${ORG}/settings`,
  `/org/${ORG}/webhooks`,
];

/** R-WEB-01: the policy every page carries: nothing inline, nothing from elsewhere, never framed. */
function expectStrictPolicy(res: Response, what: string) {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, what).to.contain("default-src 'self'");
  expect(csp, what).to.contain("script-src 'self'");
  expect(csp, what).to.contain("style-src 'self'");
  expect(csp, what).to.contain("frame-ancestors 'none'");
  expect(csp, what).to.not.contain('unsafe-inline');
  expect(csp, what).to.not.contain('unsafe-eval');
}

describe(`§11 the pages are served by the service itself (R-WEB-01, R-WEB-06; ${mainBackend})`, function () {
  let service: TestService;

  before(async function () {
    this.timeout(180_000);
    builtPages();
    service = await startTestService({ domain: {} });
  });
  after(() => service?.close());

  it('every page path of §11 answers the app’s index.html with a Content-Security-Policy without unsafe-inline', async () => {
    for (const path of PAGES) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type'), path).to.match(/^text\/html/);
      expectStrictPolicy(res, path);
      const html = await res.text();
      expect(html, path).to.contain('<div id="root"></div>');
      expect(html, `${path}: no inline script`).to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('the assets come from the service under hashed paths, with the same policy', async () => {
    const html = await (await fetch(`${service.url}/sign-in`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).to.be.greaterThan(0);
    for (const asset of assets) {
      expect(asset).to.match(/^\/assets\/[\w.-]+-[\w-]{8,}\.(js|css)$/);
      const res = await fetch(`${service.url}${asset}`);
      expect(res.status, asset).to.equal(200);
      expect(res.headers.get('cache-control'), asset).to.contain('immutable');
      expectStrictPolicy(res, asset);
    }
    expect((await fetch(`${service.url}/assets/nothing-12345678.js`)).status).to.equal(404);
  });

  it('API paths stay the API’s: /org/v1/… is no organization page, and other methods are not pages', async () => {
    const api = await fetch(`${service.url}/org/v1/requests`);
    expect(api.status).to.equal(401);
    expect(api.headers.get('content-type')).to.match(/^application\/problem\+json/);
    const post = await fetch(`${service.url}/requests`, { method: 'POST' });
    expect(post.status).to.equal(404);
  });

  it('the development mailbox shows the embedded outbox, with the page policy', async () => {
    const email = `m${randomBytes(5).toString('hex')}@example.com`;
    expect(
      (
        await fetch(`${service.url}/auth/send-otp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email }),
        })
      ).status,
    ).to.equal(200);
    const res = await fetch(`${service.url}/dev/mailbox`);
    expect(res.status).to.equal(200);
    expectStrictPolicy(res, '/dev/mailbox');
    const html = await res.text();
    expect(html).to.contain(`To ${email}`);
    expect(html).to.match(/\b\d{6}\b/);
  });

  it('the development mailbox is shown only to a browser on this machine: from another address it goes on to the 404', () => {
    const from = (remoteAddress: string) => {
      let passed = false;
      const req = { method: 'GET', path: '/dev/mailbox', socket: { remoteAddress } } as unknown as ExpressRequest;
      webPages({ outbox: '/nonexistent/outbox.log' })(req, {} as ExpressResponse, () => void (passed = true));
      return passed;
    };
    expect(from('192.0.2.2'), 'another address').to.equal(true);
    expect(from('::ffff:10.0.0.7'), 'another address, as IPv4 on IPv6').to.equal(true);
  });

  describe('with SMTP (and so in production)', () => {
    let smtp: TestService;
    before(async () => {
      smtp = await startTestService({ domain: { env: { SMTP_URL: 'smtp://127.0.0.1:9' } } });
    });
    after(() => smtp?.close());

    it('there is no development mailbox', async () => {
      const res = await fetch(`${smtp.url}/dev/mailbox`);
      expect(res.status).to.equal(404);
    });
  });
});
