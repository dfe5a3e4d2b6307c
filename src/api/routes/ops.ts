import { Router, type RequestHandler } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { refuse } from '../../commands/refusal.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { checkReadiness, type ReadinessOptions, type ReadinessSources } from '../../observability/readiness.js';
import { sendProblem, SERVICE_PROBLEMS } from '../problems.js';
import { bearerToken } from '../auth/challenge.js';
import { sendRefusal } from '../refusals.js';

/** Liveness, readiness and Prometheus metrics (R-OPS-01 to R-OPS-03). */
export function opsRoutes(deps: {
  readonly sources: ReadinessSources;
  readonly readiness: ReadinessOptions;
  readonly metrics: Pick<Metrics, 'registry'>;
  /** METRICS_TOKEN, and whether the service runs with NODE_ENV=production. */
  readonly metricsAccess: { readonly token: string | null; readonly production: boolean };
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
      ...SERVICE_PROBLEMS.not_ready,
      code: 'not_ready',
      detail: `not ready: ${failed.join(', ')}`,
      extensions: { checks },
    });
  });

  // Contract §10.12: in production /metrics exists only behind METRICS_TOKEN (unmounted, it is the 404 of any unknown path).
  const { token, production } = deps.metricsAccess;
  if (token !== null || !production) {
    router.get('/metrics', ...(token === null ? [] : [bearer(token)]), async (_req, res) => {
      const text = await deps.metrics.registry.metrics();
      res.type(deps.metrics.registry.contentType).send(text);
    });
  }

  return router;
}

/** Only `Authorization: Bearer <token>` passes; the comparison takes the same time wherever the tokens differ. */
function bearer(token: string): RequestHandler {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const wanted = digest(token);
  return (req, res, next) => {
    const given = bearerToken(req.headers.authorization);
    if (given !== null && timingSafeEqual(digest(given), wanted)) return next();
    // sendRefusal adds RFC 6750's challenge, as every Bearer route answers (contract §10.5).
    sendRefusal(
      res,
      refuse(
        'unauthenticated',
        given === null ? 'no token: /metrics needs Authorization: Bearer <METRICS_TOKEN>' : 'not the METRICS_TOKEN',
      ),
    );
  };
}
