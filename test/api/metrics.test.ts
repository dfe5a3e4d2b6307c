import { expect } from 'chai';
import type { Express } from 'express';
import { Router } from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/api/app.js';
import { createLogger } from '../../src/logger.js';
import { mainBackend } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';
import { startTestService, type TestService } from './support/service.js';

function testRoutes(app: Express): void {
  const org = Router();
  org.get('/members/:email', (_req, res) => {
    res.json({ ok: true });
  });
  org.get('/fails/:id', () => {
    throw new Error('inside a sub-router');
  });
  app.use('/org/v1', org);
}

/** The value of one series in Prometheus text format, or null when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | null {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split('} ')[0] ?? '';
    if (want.every((w) => labelText.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

describe(`GET /metrics (contract §7, ${mainBackend})`, function () {
  let s: TestService;
  before(async () => {
    s = await startTestService({ routes: testRoutes, startEngine: false, queueNames: ['mail'] });
  });
  after(async () => {
    await s.close();
  });

  const scrape = async () => {
    const res = await fetch(`${s.url}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('times requests in a histogram labelled by method, route template and status, never the raw path', async () => {
    await fetch(`${s.url}/org/v1/members/alice%40example.com`);
    await fetch(`${s.url}/org/v1/members/bob%40example.com`);
    await fetch(`${s.url}/org/v1/fails/7`);
    await fetch(`${s.url}/nowhere/42`);
    const text = await scrape();
    expect(text).to.contain('# TYPE http_request_duration_seconds histogram');
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/org/v1/members/:email', status: '200' })).to.equal(
      2,
    );
    expect(sample(text, 'http_request_duration_seconds_bucket', { le: '+Inf', route: '/org/v1/members/:email' })).to.equal(2);
    // An error leaving a sub-router still counts under the full template.
    expect(sample(text, 'http_request_duration_seconds_count', { route: '/org/v1/fails/:id', status: '500' })).to.equal(1);
    expect(sample(text, 'http_request_duration_seconds_count', { route: 'unmatched', status: '404' })).to.equal(1);
    expect(text).not.to.match(/example\.com|nowhere|\/42"/);
  });

  it("shows each projector's lag behind the log head, in seconds", async () => {
    expect(sample(await scrape(), 'projection_lag_seconds', { projector: 'stream_heads' })).to.equal(0);
    const old = new Date(Date.now() - 90_000).toISOString();
    await s.store.appendToStream(uniqueStream(), [newEvent('Happened', {}, { occurredAt: old })], 'no_stream');
    expect(sample(await scrape(), 'projection_lag_seconds', { projector: 'stream_heads' })).to.be.within(89, 150);
  });

  it('counts the events appended, by stream category and type', async () => {
    await s.store.appendToStream(uniqueStream('invoice'), [newEvent('InvoiceSent'), newEvent('InvoiceSent')], 'no_stream');
    expect(sample(await scrape(), 'events_appended_total', { category: 'invoice', type: 'InvoiceSent' })).to.equal(2);
  });

  it('shows the depth of every watched queue per state', async () => {
    await s.queue.enqueue('mail', 'job-a', {});
    await s.queue.enqueue('mail', 'job-b', {});
    const text = await scrape();
    expect(sample(text, 'queue_jobs', { queue: 'mail', state: 'waiting' })).to.equal(2);
    expect(sample(text, 'queue_jobs', { queue: 'mail', state: 'failed' })).to.equal(0);
  });

  it('includes the default process metrics', async () => {
    const text = await scrape();
    expect(text).to.contain('process_cpu_user_seconds_total');
    expect(text).to.contain('nodejs_heap_size_used_bytes');
  });

  it('keeps a registry per app: another app in the process starts from zero', async () => {
    // A second app over the same stores: only its registry is new.
    const other = createApp({
      config: { baseUrl: 'http://other.test' },
      logger: createLogger('silent'),
      db: s.db,
      store: s.store,
      engine: s.engine,
      queue: s.queue,
    });
    const server = other.listen(0, '127.0.0.1');
    try {
      await once(server, 'listening');
      const text = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`)).text();
      expect(text).to.contain('projection_lag_seconds');
      expect(sample(text, 'http_request_duration_seconds_count', { route: '/org/v1/members/:email' })).to.equal(null);
      expect(sample(text, 'events_appended_total', { category: 'invoice' })).to.equal(null);
    } finally {
      server.close();
    }
  });
});
