import { Router } from 'express';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { checkReadiness, type ReadinessOptions, type ReadinessSources } from '../../observability/readiness.js';
import { sendProblem } from '../problems.js';

/** Liveness, readiness and Prometheus metrics (R-OPS-01 to R-OPS-03). */
export function opsRoutes(deps: {
  readonly sources: ReadinessSources;
  readonly readiness: ReadinessOptions;
  readonly metrics: Pick<Metrics, 'registry'>;
  readonly logger: Pick<Logger, 'warn'>;
}): Router {
  const router = Router();

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const { ready, checks } = await checkReadiness(deps.sources, deps.readiness, (err, check) => {
      deps.logger.warn({ err, check }, 'readiness check failed');
    });
    if (ready) {
      res.json({ status: 'ready', checks });
      return;
    }
    const failed = Object.entries(checks)
      .filter(([, c]) => c.status === 'failed')
      .map(([name]) => name);
    if (checks.projections.status === 'failed' && checks.projections.reason === 'behind') {
      deps.logger.warn({ lagSeconds: checks.projections.lagSeconds }, 'projections behind the readiness bound');
    }
    if (checks.projections.status === 'failed' && checks.projections.reason === 'stalled') {
      deps.logger.warn({ stalled: checks.projections.stalled }, 'projectors stalled on events they cannot apply');
    }
    sendProblem(res, {
      status: 503,
      code: 'not_ready',
      title: 'Not ready',
      detail: `not ready: ${failed.join(', ')}`,
      extensions: { checks },
    });
  });

  router.get('/metrics', async (_req, res) => {
    const text = await deps.metrics.registry.metrics();
    res.type(deps.metrics.registry.contentType).send(text);
  });

  return router;
}
