import type { NextFunction, Request, Response } from 'express';
import type { MetricsService } from './metrics.service.js';

/** Counts and times every request by its route pattern (not the raw URL: bounded label values). */
export function metricsMiddleware(metrics: MetricsService) {
  return (req: Request, res: Response, next: NextFunction) => {
    const startNs = process.hrtime.bigint();
    res.on('finish', () => {
      const route = (req.route?.path as string | undefined) ?? (res.statusCode === 404 ? 'unmatched' : req.baseUrl || 'other');
      const seconds = Number(process.hrtime.bigint() - startNs) / 1e9;
      metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.httpLatency.observe({ method: req.method, route }, seconds);
    });
    next();
  };
}
