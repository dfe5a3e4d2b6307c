import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isPublicAddress } from '../../src/webhooks/addresses.js';
import { POST_LIMITS, postWebhook, type PostLimits } from '../../src/webhooks/post.js';

/** A loopback server answering as `handle` does; closed after each test. */
async function serve(handle: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: URL }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`) };
}

const options = (limits: Partial<PostLimits> = {}) => ({
  allowPrivate: true,
  resolve: async () => [],
  limits: { ...POST_LIMITS, ...limits },
});

describe('R-HOOK-08 one POST to a webhook: its time and what it reads are bounded', function () {
  this.timeout(20_000);
  let server: Server | null = null;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = null;
  });

  it('an endpoint that never answers fails as a timeout once the total time has passed', async () => {
    let url: URL;
    ({ server, url } = await serve(() => undefined));
    const started = Date.now();
    const outcome = await postWebhook(url, {}, '{}', options({ totalTimeoutMs: 300 }));
    expect(outcome).to.include({ succeeded: false, responseStatus: null, error: 'timeout' });
    expect(Date.now() - started).to.be.within(250, 2000);
  });

  it('an answer whose body never ends is judged by its status: at most the bound of it is read, then the connection is closed', async () => {
    let url: URL;
    let written = 0;
    let closed = false;
    ({ server, url } = await serve((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(1024, 'x');
      const timer = setInterval(() => {
        written += chunk.length;
        res.write(chunk);
      }, 5);
      res.on('close', () => {
        closed = true;
        clearInterval(timer);
      });
    }));
    const outcome = await postWebhook(url, {}, '{}', options({ maxResponseBytes: 4096 }));
    expect(outcome).to.include({ succeeded: true, responseStatus: 200, error: null });
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 20));
    expect(closed, 'the service hung up').to.equal(true);
    expect(written).to.be.below(64 * 1024);
  });

  it('only a 2xx succeeds: a 4xx or 5xx fails with its status, a 3xx as a redirect not followed', async () => {
    let url: URL;
    const statuses = [201, 410, 503, 307];
    ({ server, url } = await serve((_req, res) => res.writeHead(statuses.shift()!, { location: 'https://elsewhere.example/' }).end()));
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await postWebhook(url, {}, '{}', options()));
    expect(outcomes.map((o) => [o.succeeded, o.responseStatus, o.error])).to.deep.equal([
      [true, 201, null],
      [false, 410, 'HTTP 410'],
      [false, 503, 'HTTP 503'],
      [false, 307, 'redirect not followed (HTTP 307)'],
    ]);
  });

  it('a host that does not resolve, or refuses the connection, fails with a reason and no status', async () => {
    const unresolved = await postWebhook(new URL('https://nowhere.example/'), {}, '{}', {
      ...options(),
      resolve: () => Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' })),
    });
    expect(unresolved).to.include({ succeeded: false, responseStatus: null, error: 'the host could not be resolved (ENOTFOUND)' });
    let url: URL;
    ({ server, url } = await serve(() => undefined));
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = null;
    expect(await postWebhook(url, {}, '{}', options())).to.include({ succeeded: false, responseStatus: null, error: 'ECONNREFUSED' });
  });
});

describe('R-HOOK-08 which addresses are public', () => {
  it('the public internet is; this host, private networks, link-local (cloud metadata), CGNAT, ULA, multicast and reserved ranges are not', () => {
    const judged = (addresses: string[]) => addresses.filter(isPublicAddress);
    expect(judged(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])).to.have.length(5);
    expect(
      judged([
        '127.0.0.1',
        '10.1.2.3',
        '172.16.0.1',
        '192.168.1.1',
        '169.254.169.254',
        '100.64.0.1',
        '0.0.0.0',
        '224.0.0.1',
        '240.0.0.1',
        '255.255.255.255',
        '192.0.2.1',
        '::',
        '::1',
        '::ffff:127.0.0.1',
        '::ffff:10.0.0.1',
        '64:ff9b::7f00:1',
        'fd00:ec2::254',
        'fc00::1',
        'fe80::1',
        'ff02::1',
        '2001:db8::1',
        'not an address',
      ]),
    ).to.deep.equal([]);
  });
});
