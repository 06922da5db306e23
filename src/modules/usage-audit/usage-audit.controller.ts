import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { ContributorIdParamDto } from '../contributors/contributors.schemas.js';
import { ReviewDto, ReviewResponseDto, UsageAuditQueryDto, UsageAuditResponseDto } from './usage-audit.schemas.js';
import type { StoredRatio } from './usage-audit.repository.js';
import { UsageAuditService } from './usage-audit.service.js';

@ApiTags('admin: usage audit')
@ApiBearerAuth()
@Controller('v1/admin')
@Roles('admin')
export class UsageAuditController {
  constructor(private readonly audit: UsageAuditService) {}

  @Get('usage-audit')
  @ApiResponse({ status: 200, type: UsageAuditResponseDto, description: 'per contributor and model: audited events, median ratio, the model median, flagged' })
  async list(@Query() query: UsageAuditQueryDto) {
    const rows = await this.audit.list();
    const wanted = query.flagged === undefined ? rows : rows.filter((r) => r.flagged === (query.flagged === 'true'));
    return {
      data: wanted.map((r) => ({
        contributor_id: r.contributorId,
        model: r.model,
        events: r.events,
        median_ratio: trimRatio(r.medianRatio),
        model_median_ratio: r.modelMedianRatio === null ? null : trimRatio(r.modelMedianRatio),
        prompt: ratioBody(r.prompt),
        reasoning: ratioBody(r.reasoning),
        flagged: r.flagged,
        flagged_ratios: r.flaggedRatios,
        flagged_since: r.flaggedSince?.toISOString() ?? null,
      })),
    };
  }

  @Post('contributors/:id/review')
  @HttpCode(200)
  @ApiResponse({ status: 200, type: ReviewResponseDto, description: 'clear: payouts resume and only later events count; suspend: the contributor is suspended' })
  async review(@CurrentPrincipal() actor: Principal, @Param() params: ContributorIdParamDto, @Body() body: ReviewDto) {
    const result = await this.audit.review(actor, params.id, body.decision, body.reason);
    return { contributor_id: params.id, decision: body.decision, reason: body.reason, status: result.status, reviewed_at: result.reviewedAt.toISOString() };
  }
}

function ratioBody(stored: StoredRatio) {
  return {
    events: stored.events,
    median_ratio: stored.medianRatio === null ? null : trimRatio(stored.medianRatio),
    model_median_ratio: stored.modelMedianRatio === null ? null : trimRatio(stored.modelMedianRatio),
  };
}

/** NUMERIC(20,6) as text without trailing zeros ("1.200000" -> "1.2"). */
function trimRatio(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}
