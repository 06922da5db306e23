// Pure: a statement as RFC 4180 CSV. One row per line of the statement: the opening balance, the
// earnings of each UTC day and model, each clawback, adjustment and payout as booked, the closing
// balance. `amount_usd` is each row's signed effect on the balance, so the opening plus the rows
// in between is the closing, and the rows of one type add up to that figure of the JSON.
import { formatAttoAsUsd, formatMicroUsdc } from '../../common/money/index.js';
import { csvField, csvTextField } from '../earnings/earnings-csv.js';
import type { BookedKind, Statement } from './statement.js';

const LINE_END = '\r\n';

export type StatementRowType = 'opening' | 'earning' | BookedKind | 'closing';

export const STATEMENT_CSV_HEADER = [
  'date',
  'type',
  'model',
  'reference',
  'events',
  'prompt_tokens',
  'completion_tokens',
  'official_usd',
  'amount_usd',
  'amount_usdc',
  'tx_hash',
  'note',
] as const;

export type StatementCsvRow = Record<(typeof STATEMENT_CSV_HEADER)[number], string>;
type CsvRow = StatementCsvRow;
// Free text from gateways and operators: neutralized against spreadsheet formulas when written.
const TEXT_COLUMNS: ReadonlySet<string> = new Set(['model', 'reference', 'note']);

function emptyRow(date: string, type: StatementRowType, amountUsd: string): CsvRow {
  return {
    date,
    type,
    model: '',
    reference: '',
    events: '',
    prompt_tokens: '',
    completion_tokens: '',
    official_usd: '',
    amount_usd: amountUsd,
    amount_usdc: '',
    tx_hash: '',
    note: '',
  };
}

/** The rows (unquoted) in statement order: opening, earnings by day and model, booked lines by time, closing. */
export function statementCsvRows(statement: Statement): CsvRow[] {
  const firstDay = statement.period.from.toISOString().slice(0, 10);
  const lastDay = new Date(statement.period.to.getTime() - 1).toISOString().slice(0, 10);
  const rows: CsvRow[] = [emptyRow(firstDay, 'opening', formatAttoAsUsd(statement.openingAtto))];
  for (const earning of statement.earnings) {
    rows.push({
      ...emptyRow(earning.day, 'earning', formatAttoAsUsd(earning.earnedAtto)),
      model: earning.model,
      events: earning.events.toString(),
      prompt_tokens: earning.promptTokens.toString(),
      completion_tokens: earning.completionTokens.toString(),
      official_usd: formatAttoAsUsd(earning.officialAtto),
    });
  }
  for (const line of statement.booked) {
    rows.push({
      ...emptyRow(line.bookedAt.toISOString().slice(0, 10), line.kind, formatAttoAsUsd(line.owedDeltaAtto)),
      reference: line.payout?.payoutId ?? line.reference ?? line.ref,
      amount_usdc: line.payout ? formatMicroUsdc(line.kind === 'payout' ? line.payout.amountMicroUsdc : -line.payout.amountMicroUsdc) : '',
      tx_hash: line.payout?.txHash ?? '',
      note: line.memo ?? '',
    });
  }
  rows.push(emptyRow(lastDay, 'closing', formatAttoAsUsd(statement.closingAtto)));
  return rows;
}

export function renderStatementCsv(statement: Statement): string {
  const lines = [STATEMENT_CSV_HEADER.join(',')];
  for (const row of statementCsvRows(statement)) {
    lines.push(STATEMENT_CSV_HEADER.map((column) => (TEXT_COLUMNS.has(column) ? csvTextField(row[column]) : csvField(row[column]))).join(','));
  }
  return lines.join(LINE_END) + LINE_END;
}

export function statementFilename(statement: Statement, extension: 'csv' | 'pdf'): string {
  const safeId = statement.contributorId.replace(/[^A-Za-z0-9._-]/g, '_');
  return `statement-${safeId}-${statement.period.month}.${extension}`;
}
