import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, queryKeys, type StatementFormat } from '../../api/endpoints';
import { DataTable } from '../../components/data-table';
import { ErrorMessage, QueryView } from '../../components/states';
import { MoneyStats, Stat, StatGrid } from '../../components/stat';
import { recentMonths, statementFilename } from '../../lib/console-forms';
import { saveBlob } from '../../lib/download';
import { formatCount } from '../../lib/format';
import { moneyColumn, timeColumn, txColumn } from '../../components/columns';

/** A month from opening to closing balance. */
const STATEMENT_FIGURES = [['Opening', 'opening_usd'], ['Earned', 'earned_usd'], ['Clawed back', 'clawed_back_usd'], ['Adjustments', 'adjustments_usd'], ['Paid', 'paid_usd'], ['Closing', 'closing_usd']] as const;

const MONTHS_OFFERED = 24;

/**
 * A monthly statement (docs/statements.md): the figures as the API sent them, and CSV and PDF
 * fetched with the key (Authorization header) and saved as blobs: a plain link could not carry it.
 */
export function StatementsPanel({ contributorId }: { contributorId: string }) {
  const months = recentMonths(new Date(), MONTHS_OFFERED);
  const [month, setMonth] = useState(months[0]!);
  const statement = useQuery({ queryKey: queryKeys.statement(contributorId, month), queryFn: () => api.statement(contributorId, month) });
  const download = useMutation({
    mutationFn: (format: StatementFormat) => api.statementFile(contributorId, month, format).then((file) => ({ ...file, format })),
    onSuccess: ({ blob, filename, format }) => saveBlob(blob, filename ?? statementFilename(contributorId, month, format)),
  });
  return (
    <section className="panel" aria-labelledby={`statements-${contributorId}`}>
      <h2 id={`statements-${contributorId}`}>Monthly statement</h2>
      <div className="actions">
        <label htmlFor={`statement-month-${contributorId}`}>Month (UTC)</label>
        <select id={`statement-month-${contributorId}`} value={month} onChange={(e) => setMonth(e.target.value)}>
          {months.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => download.mutate('csv')} disabled={download.isPending}>
          Download statement CSV
        </button>
        <button type="button" onClick={() => download.mutate('pdf')} disabled={download.isPending}>
          Download statement PDF
        </button>
      </div>
      {download.isError && <ErrorMessage error={download.error} title="Download failed" />}
      <QueryView query={statement} label={`the statement of ${month}`}>
        {(s) => (
          <div data-statement-month={s.month}>
            {s.month_ended === false && <p className="muted small">This month has not ended: its figures so far.</p>}
            <StatGrid label={`Statement ${s.month}`}>
              <MoneyStats of={s} figures={STATEMENT_FIGURES} namePrefix="statement." />
              <Stat label="Events" name="statement.events">{formatCount(s.events)}</Stat>
            </StatGrid>
            <DataTable<(typeof s.payouts)[number]>
              caption={`Payouts confirmed in ${s.month}`} rows={s.payouts} rowKey={(p) => p.payout_id} empty="No payout confirmed this month."
              columns={[
                timeColumn('Confirmed', (p) => p.confirmed_at),
                moneyColumn('Amount', (p) => p.amount_usdc, 'USDC'),
                txColumn((p) => p.tx_hash),
              ]}
            />
            <details>
              <summary>Totals as JSON</summary>
              <pre className="json" data-statement-json>
                {JSON.stringify(
                  {
                    contributor_id: s.contributor_id,
                    month: s.month,
                    opening_usd: s.opening_usd,
                    earned_usd: s.earned_usd,
                    clawed_back_usd: s.clawed_back_usd,
                    adjustments_usd: s.adjustments_usd,
                    paid_usd: s.paid_usd,
                    closing_usd: s.closing_usd,
                    events: s.events,
                  },
                  null,
                  2,
                )}
              </pre>
            </details>
          </div>
        )}
      </QueryView>
    </section>
  );
}
