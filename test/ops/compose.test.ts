import { expect } from 'chai';
import { readFileSync } from 'node:fs';

// The compose file runs trust-auth PostgreSQL, Redis and insecure KurrentDB: published on every
// interface, anyone on the network could read and rewrite the whole service.
describe('docker-compose.yml publishes nothing beyond the host', () => {
  const compose = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');
  const published = [...compose.matchAll(/^\s*ports:\s*\[(.*)\]\s*$/gm)].flatMap((m) =>
    (m[1] ?? '').split(',').map((p) => p.trim().replace(/^"|"$/g, '')),
  );

  it('lists the published ports of every service in the flow form this test reads', () => {
    const portsKeys = compose.match(/^\s*ports:/gm) ?? [];
    const flowForm = compose.match(/^\s*ports:\s*\[.*\]\s*$/gm) ?? [];
    expect(flowForm).to.have.length(portsKeys.length);
    expect(published).to.have.length.greaterThan(4);
  });

  it('binds every published port to 127.0.0.1', () => {
    for (const port of published) expect(port, port).to.match(/^127\.0\.0\.1:\d+:\d+$/);
  });
});
