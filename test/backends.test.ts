import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackends } from '../src/backends.js';
import { loadConfig } from '../src/config.js';
import { createMetrics } from '../src/observability/metrics.js';
import { onScratchPostgres } from './support/databases.js';

/** PostgreSQL only: the embedded PGlite sends nothing over a wire. */
describe('openBackends: the pools count the queries they send to PostgreSQL (db_queries_total, docs/performance.md)', function () {
  this.timeout(60_000);
  const scratch = onScratchPostgres();

  it('the requests pool counts its queries outside and inside transactions, the projections pool its own', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'backends-'));
    const metrics = createMetrics();
    const backends = await openBackends(loadConfig({ DATABASE_URL: scratch().url!, DATA_DIR: dataDir }), metrics);
    try {
      const value = async (pool: string, kind: string) =>
        (await metrics.dbQueries.get()).values.find((v) => v.labels.pool === pool && v.labels.kind === kind)?.value ?? 0;
      const reads = await value('requests', 'autocommit');
      await backends.db.query('SELECT $1::int AS n', [1]);
      await backends.db.query('SELECT $1::int AS n', [2]);
      expect((await value('requests', 'autocommit')) - reads).to.equal(2);
      const projected = await value('projections', 'transaction');
      await backends.projectionsDb.transaction((tx) => tx.query('SELECT 1'));
      expect((await value('projections', 'transaction')) - projected).to.equal(3);
      expect(await metrics.registry.metrics()).to.match(/^db_queries_total\{pool="requests",kind="autocommit"\} \d+$/m);
    } finally {
      await backends.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
