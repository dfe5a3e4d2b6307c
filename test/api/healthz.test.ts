import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/api/app.js';

describe('GET /healthz (contract 7)', () => {
  it('answers 200 while the process is up', async () => {
    const server = createApp().listen(0);
    try {
      await new Promise((r) => server.once('listening', r));
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ status: 'ok' });
    } finally {
      server.close();
    }
  });
});
