import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { cursorRowIdSchema, decodeCursor, encodeCursor } from '../../common/http/pagination.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { EXPLORER_CSV_HEADER, explorerCsvLine, explorerEventBody, summaryBody } from './usage-explorer.presenter.js';
import { UsageEventsPageDto, UsageEventsQueryDto, UsageSummaryDto, UsageSummaryQueryDto } from './usage-explorer.schemas.js';
import { explorerFilterOf, UsageExplorerService } from './usage-explorer.service.js';
import type { ExplorerEvent, ExplorerFilter } from './usage-explorer.repository.js';

const cursorSchema = z.object({ id: cursorRowIdSchema });

/** True when the Accept header ranks text/csv above JSON (a missing q is 1; ties go to JSON). */
export function prefersCsv(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let csv = 0;
  let json = 0;
  for (const part of accept.slice(0, 1024).split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    if (type === 'text/csv') csv = Math.max(csv, q);
    if (type === 'application/json') json = Math.max(json, q);
  }
  return csv > json;
}

async function* csvText(pages: AsyncGenerator<ExplorerEvent[]>): AsyncGenerator<string> {
  yield EXPLORER_CSV_HEADER;
  for await (const rows of pages) yield rows.map(explorerCsvLine).join('');
}

@ApiTags('usage events')
@ApiBearerAuth()
@Controller('v1/admin')
@Roles('admin')
export class UsageExplorerController {
  constructor(private readonly explorer: UsageExplorerService) {}

  /** Any combination of filters, newest first; `Accept: text/csv` streams the whole selection. */
  @Get('usage-events')
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: UsageEventsPageDto })
  async list(@Query() query: UsageEventsQueryDto, @Headers('accept') accept: string | undefined, @Res({ passthrough: true }) res: FastifyReply) {
    const filter = explorerFilterOf(query);
    if (prefersCsv(accept)) return this.csv(filter, res);
    const cursor = decodeCursor(query.cursor, cursorSchema);
    const rows = await this.explorer.page(filter, query.limit, cursor ? BigInt(cursor.id) : null);
    const last = rows.at(-1);
    return {
      data: rows.map(explorerEventBody),
      next_cursor: rows.length === query.limit && last ? encodeCursor({ id: last.id.toString() }) : null,
    };
  }

  /** Exact sums of priced events per day (UTC), model, user, contributor or key, and the totals. */
  @Get('usage/summary')
  @ApiOkResponse({ type: UsageSummaryDto })
  async summary(@Query() query: UsageSummaryQueryDto) {
    return summaryBody(query.group_by, await this.explorer.summary(explorerFilterOf(query), query.group_by));
  }

  private csv(filter: ExplorerFilter, res: FastifyReply) {
    res.header('Content-Type', 'text/csv; charset=utf-8');
    res.header('Content-Disposition', 'attachment; filename="usage-events.csv"');
    // Pulled page by page as the client reads (stream backpressure): constant memory at any size.
    return Readable.from(csvText(this.explorer.all(filter)), { objectMode: false });
  }
}
