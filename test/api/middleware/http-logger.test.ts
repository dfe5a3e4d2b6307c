import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { httpLogger } from '../../../src/api/middleware/http-logger.js';
import { problemErrorHandler } from '../../../src/api/middleware/error-handler.js';
import { requestIds } from '../../../src/api/middleware/request-ids.js';
import { captureRouteTemplate } from '../../../src/api/middleware/route-template.js';
import { createLogger } from '../../../src/logger.js';

/** A server with the logger at `level`, and the lines it wrote. */
async function serve(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const app = express();
  app.use(requestIds());
  app.use(captureRouteTemplate());
  app.use(httpLogger(logger));
  app.get('/fine', (_req, res) => void res.json({ ok: true }));
  app.get('/refused', (_req, res) => void res.status(404).json({ code: 'not_found' }));
  app.get('/broken', () => {
    throw new Error('relation "secret_table" does not exist');
  });
  app.get('/healthz', (_req, res) => void res.json({ ok: true }));
  app.use(problemErrorHandler());
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (path: string) => {
    await (await fetch(`${url}${path}`, { headers: { 'x-request-id': `id${path.replace('/', '-')}` } })).text();
    // The line is written when the response closes, just after the client has read it.
    await new Promise((r) => setTimeout(r, 20));
  };
  return { lines, get, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('request log lines (style: log with context, never personal data)', () => {
  it('at info, one line per request: its ids, method, path, route, status and time; a failure at error with its cause', async () => {
    const s = await serve('info');
    try {
      for (const path of ['/fine', '/refused', '/broken', '/healthz']) await s.get(path);
      expect(s.lines.map((l) => [l.requestId, l.level, l.msg])).to.deep.equal([
        ['id-fine', 30, 'request completed'],
        ['id-refused', 30, 'request completed'],
        ['id-broken', 50, 'request failed'],
      ]);
      expect(s.lines[0]).to.deep.include({ req: { method: 'GET', path: '/fine' }, res: { statusCode: 200 }, route: '/fine' });
      expect(s.lines[0]!.responseTime).to.be.a('number');
      expect(s.lines[2]!.res).to.deep.equal({ statusCode: 500 });
      expect(JSON.stringify(s.lines[2]!.err)).to.contain('secret_table');
    } finally {
      await s.close();
    }
  });

  it('at warn, only the failures', async () => {
    const s = await serve('warn');
    try {
      for (const path of ['/fine', '/refused', '/broken']) await s.get(path);
      expect(s.lines.map((l) => [l.requestId, l.msg])).to.deep.equal([['id-broken', 'request failed']]);
    } finally {
      await s.close();
    }
  });
});
