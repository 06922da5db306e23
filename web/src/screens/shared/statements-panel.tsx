import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, queryKeys, type StatementFormat } from '../../api/endpoints';
import { DataTable } from '../../components/data-table';
import { Money } from '../../components/money';
import { ErrorMessage, QueryView } from '../../components/states';
import { Stat, StatGrid } from '../../components/stat';
import { TxLink } from '../../components/tx-link';
import { recentMonths, statementFilename } from '../../lib/console-forms';
import { saveBlob } from '../../lib/download';
import { formatCount, formatTimestamp } from '../../lib/format';

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
              <Stat label="Opening" name="statement.opening_usd"><Money value={s.opening_usd} /></Stat>
              <Stat label="Earned" name="statement.earned_usd"><Money value={s.earned_usd} /></Stat>
              <Stat label="Clawed back" name="statement.clawed_back_usd"><Money value={s.clawed_back_usd} /></Stat>
              <Stat label="Adjustments" name="statement.adjustments_usd"><Money value={s.adjustments_usd} /></Stat>
              <Stat label="Paid" name="statement.paid_usd"><Money value={s.paid_usd} /></Stat>
              <Stat label="Closing" name="statement.closing_usd"><Money value={s.closing_usd} /></Stat>
              <Stat label="Events" name="statement.events">{formatCount(s.events)}</Stat>
            </StatGrid>
            <DataTable
              caption={`Payouts confirmed in ${s.month}`}
              rows={s.payouts}
              rowKey={(p) => p.payout_id}
              empty="No payout confirmed this month."
              columns={[
                { header: 'Confirmed', cell: (p) => formatTimestamp(p.confirmed_at) },
                { header: 'Amount', numeric: true, cell: (p) => <Money value={p.amount_usdc} unit="USDC" /> },
                { header: 'Transaction', cell: (p) => <TxLink hash={p.tx_hash} /> },
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
