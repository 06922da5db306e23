import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../../common/auth/roles.decorator.js';
import { MetricsService } from './metrics.service.js';
import { checkBody, READINESS_CHECKS, runCheck, type ReadinessCheck } from './readiness.js';

@ApiTags('operations')
@Controller()
@Public()
export class HealthController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
  ) {}

  @Get('health')
  live() {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(@Res() res: FastifyReply) {
    const results = await Promise.all(this.checks.map(runCheck));
    const ok = results.every((r) => r.ok || !r.required);
    void res.code(ok ? 200 : 503).send({
      status: ok ? 'ok' : 'unavailable',
      checks: Object.fromEntries(results.map((r) => [r.name, checkBody(r)])),
    });
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4')
  async scrape() {
    return this.metrics.registry.metrics();
  }
}
