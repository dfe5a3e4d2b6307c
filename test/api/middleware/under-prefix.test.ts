import { expect } from 'chai';
import express, { Router } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { underPrefix } from '../../../src/api/middleware/under-prefix.js';

describe('routers entered only under their prefix (docs/performance.md)', () => {
  const entered: string[] = [];
  let server: Server;
  let url: string;

  before(async () => {
    const org = Router();
    org.use((req, _res, next) => {
      entered.push(req.path);
      next();
    });
    org.get('/org/v1/things', (_req, res) => void res.json({ router: 'org' }));
    const app = express();
    app.use(underPrefix('/org/', org));
    app.get('/graphql', (_req, res) => void res.json({ router: 'graphql' }));
    server = app.listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => entered.splice(0));

  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    return { status: res.status, body: res.status === 200 ? ((await res.json()) as unknown) : await res.text() };
  };

  it('a request under the prefix reaches its route, whatever the case of its path, as Express matches routes', async () => {
    expect(await get('/org/v1/things')).to.deep.equal({ status: 200, body: { router: 'org' } });
    expect(await get('/ORG/V1/Things')).to.deep.equal({ status: 200, body: { router: 'org' } });
    expect(entered).to.deep.equal(['/org/v1/things', '/ORG/V1/Things']);
  });

  it('any other request passes the router by without entering it', async () => {
    expect(await get('/graphql')).to.deep.equal({ status: 200, body: { router: 'graphql' } });
    expect((await get('/organizations')).status).to.equal(404);
    expect(entered).to.deep.equal([]);
  });
});
