import type { RequestHandler } from 'express';
import type { Metrics } from '../../observability/metrics.js';
import { routeTemplate } from './route-template.js';

/**
 * Times every request into the latency histogram, labelled by route template: raw paths carry
 * ids and emails, and one series per id would swamp Prometheus.
 */
export function httpMetrics(metrics: Pick<Metrics, 'httpDuration'>): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let observed = false;
    const observe = () => {
      if (observed) return;
      observed = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpDuration.observe(
        { method: req.method, route: routeTemplate(req) ?? 'unmatched', status: String(res.statusCode) },
        seconds,
      );
    };
    // 'close' alone also covers a client that hung up before the response finished.
    res.once('finish', observe);
    res.once('close', observe);
    next();
  };
}
