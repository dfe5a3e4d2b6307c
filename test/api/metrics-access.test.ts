import { expect } from 'chai';
import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';
import { createApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { mainBackend } from '../support/databases.js';
import { startTestService, type TestService } from './support/service.js';

const TOKEN = 'a-scraper-secret-of-the-operator';
const PRODUCTION = { NODE_ENV: 'production', JWT_PRIVATE_KEY: 'set', MASTER_KEY: 'set', SMTP_URL: 'smtp://127.0.0.1:1' };

describe(`§10.12 /metrics is for the operator's scraper (${mainBackend})`, function () {
  let s: TestService;
  before(async () => {
    s = await startTestService({ startEngine: false });
  });
  after(() => s.close());

  /** The app as main.ts composes it, under these settings, on a port of its own. */
  async function metricsUnder(env: Record<string, string>, headers: Record<string, string> = {}) {
    const config = loadConfig(env);
    const app = createApp({
      config,
      logger: createLogger('silent'),
      db: s.db,
      store: s.store,
      engine: s.engine,
      queue: s.queue,
    });
    const server: Server = app.listen(0, '127.0.0.1');
    try {
      await once(server, 'listening');
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`, { headers });
      return { status: res.status, authenticate: res.headers.get('www-authenticate'), body: await res.text() };
    } finally {
      server.close();
    }
  }

  it('with METRICS_TOKEN set, a scrape without a token answers 401 with WWW-Authenticate: Bearer', async () => {
    const r = await metricsUnder({ METRICS_TOKEN: TOKEN });
    expect(r.status).to.equal(401);
    expect(r.authenticate).to.match(/^Bearer\b/);
    expect(JSON.parse(r.body)).to.include({ code: 'unauthenticated' });
    expect(r.body).not.to.contain('process_cpu');
  });

  it('with METRICS_TOKEN set, another token answers 401 and shows no metric', async () => {
    for (const wrong of [`${TOKEN}x`, TOKEN.slice(1), 'short', `Basic ${TOKEN}`]) {
      const r = await metricsUnder({ METRICS_TOKEN: TOKEN }, { authorization: wrong.startsWith('Basic') ? wrong : `Bearer ${wrong}` });
      expect(r.status, wrong).to.equal(401);
      expect(r.body).not.to.contain('process_cpu');
    }
  });

  it('with METRICS_TOKEN set, Authorization: Bearer <METRICS_TOKEN> scrapes the metrics', async () => {
    const r = await metricsUnder({ METRICS_TOKEN: TOKEN }, { authorization: `Bearer ${TOKEN}` });
    expect(r.status).to.equal(200);
    expect(r.body).to.contain('process_cpu_user_seconds_total');
  });

  it('with NODE_ENV=production and no METRICS_TOKEN, /metrics answers 404', async () => {
    const r = await metricsUnder(PRODUCTION);
    expect(r.status).to.equal(404);
    expect(JSON.parse(r.body)).to.include({ code: 'not_found' });
  });

  it('with NODE_ENV=production and METRICS_TOKEN, the token scrapes the metrics', async () => {
    const r = await metricsUnder({ ...PRODUCTION, METRICS_TOKEN: TOKEN }, { authorization: `Bearer ${TOKEN}` });
    expect(r.status).to.equal(200);
    expect(r.body).to.contain('process_cpu_user_seconds_total');
  });
});
