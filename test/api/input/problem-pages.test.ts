import { expect } from 'chai';
import { SERVICE_PROBLEMS } from '../../../src/api/problems.js';
import { refusals } from '../../../src/api/refusals.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';

/** Every code a problem can carry: each refusal's and transport's (one table), and the service's own. */
const CODES = [...Object.keys(refusals), ...Object.keys(SERVICE_PROBLEMS)];

describe(`problem types: each problem's type URI is a page saying what it means (RFC 9457 §3.1.1; ${mainBackend})`, function () {
  let service: TestService;
  /** BASE_URL of the test service: the `type` of every problem starts with it. */
  const BASE = 'http://service.test';

  before(async () => {
    service = await startTestService({ domain: { mailer: new RecordingMailer() } });
  });
  after(() => service?.close());

  /** The page a `type` URI names, fetched from the service under test. */
  const pageOf = (type: string) => fetch(`${service.url}${type.slice(BASE.length)}`);

  it('the type of a problem the service answers is a page that names its code', async () => {
    const refused = (await (await fetch(`${service.url}/org/v1/members`)).json()) as { type: string; code: string };
    expect(refused.type).to.equal(`${BASE}/problems/unauthenticated`);
    const res = await pageOf(refused.type);
    expect(res.status).to.equal(200);
    expect(await res.text()).to.include('<code>unauthenticated</code>');
  });

  for (const code of CODES) {
    it(`${code}: a text/html page, under a CSP without inline code, that says what it means and how to fix it`, async () => {
      const res = await pageOf(`${BASE}/problems/${code}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html; charset=utf-8/);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).to.include("default-src 'none'");
      expect(csp).to.not.include('unsafe-inline');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      const page = await res.text();
      expect(page).to.include(`<code>${code}</code>`);
      expect(page).to.include('What it means').and.to.include('How to fix it');
      expect(page).to.not.match(/<script|<style|\son\w+=/i);
    });
  }

  it('an unknown code answers 404 not_found as a problem', async () => {
    const res = await pageOf(`${BASE}/problems/no_such_code`);
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(((await res.json()) as { code: string }).code).to.equal('not_found');
  });
});
