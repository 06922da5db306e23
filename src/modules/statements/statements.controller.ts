import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { assertCanReadContributor } from '../auth/access.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { renderStatementCsv, statementFilename } from './statement-csv.js';
import { statementFormatFor } from './statement-format.js';
import { renderStatementPdf } from './statement-pdf.js';
import { StatementQueryDto, StatementResponseDto } from './statements.schemas.js';
import { statementBody } from './statements.presenter.js';
import { StatementsService } from './statements.service.js';
import { idParam } from '../../common/validation/id-param.pipe.js';

/** A contributor's monthly statement: a contributor key for itself, an admin key for anyone. */
@ApiTags('contributor earnings')
@ApiBearerAuth()
@Controller('v1/contributors/:id/statements')
@Roles('admin', 'contributor')
export class StatementsController {
  constructor(private readonly statements: StatementsService) {}

  @Get(':month')
  @ApiProduces('application/json', 'text/csv', 'application/pdf')
  @ApiOkResponse({
    type: StatementResponseDto,
    description: 'JSON by default; `Accept: text/csv` (or ?format=csv) gives one row per line, `Accept: application/pdf` (or ?format=pdf) a one-page printable statement.',
  })
  async statement(
    @CurrentPrincipal() principal: Principal,
    @Param('id', idParam('id')) id: string,
    @Param('month') month: string,
    @Query() query: StatementQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) res: FastifyReply,
  ) {
    assertCanReadContributor(principal, id);
    const statement = await this.statements.statement({ contributorId: id, month });
    const format = query.format ?? statementFormatFor(accept);
    // Headers are set only on success (not with @Header): an error must still go out as JSON.
    if (format === 'csv') {
      res.header('Content-Type', 'text/csv; charset=utf-8');
      res.header('Content-Disposition', `attachment; filename="${statementFilename(statement, 'csv')}"`);
      return renderStatementCsv(statement);
    }
    if (format === 'pdf') {
      res.header('Content-Type', 'application/pdf');
      res.header('Content-Disposition', `inline; filename="${statementFilename(statement, 'pdf')}"`);
      return renderStatementPdf(statement);
    }
    return statementBody(statement);
  }
}
