import { Injectable } from '@nestjs/common';
import { DomainError, notFound } from '../../common/errors/index.js';
import { contributorInSettlement, contributorPayable, contributorPending } from '../ledger/account-codes.js';
import { buildStatement, type Statement } from './statement.js';
import { parseStatementMonth } from './statement-month.js';
import { StatementsRepository, StatementTooLarge } from './statements.repository.js';

/**
 * The accounts whose sum a statement follows: what the platform owes the contributor (earned and
 * not yet paid out, whether still maturing, payable or reserved by an open settlement). Maturing
 * moves pending to payable: inside this sum, so those entries never appear on a statement.
 */
export function owedAccountCodes(contributorId: string): string[] {
  return [contributorPending(contributorId), contributorPayable(contributorId), contributorInSettlement(contributorId)];
}

@Injectable()
export class StatementsService {
  constructor(private readonly repository: StatementsRepository) {}

  /** One contributor's statement of one UTC month: 400 for a bad or future month, 404 for an unknown contributor. */
  async statement(input: { contributorId: string; month: string; now?: Date }): Promise<Statement> {
    const now = input.now ?? new Date();
    const period = parseStatementMonth(input.month, now);
    if (!(await this.repository.contributorExists(input.contributorId))) throw notFound('contributor');
    try {
      const facts = await this.repository.statementFacts({ contributorId: input.contributorId, period, owedAccountCodes: owedAccountCodes(input.contributorId) });
      return buildStatement({ facts, now });
    } catch (error) {
      if (error instanceof StatementTooLarge) throw new DomainError('unprocessable', `${error.message}: use /earnings with a narrower range`);
      throw error;
    }
  }
}
