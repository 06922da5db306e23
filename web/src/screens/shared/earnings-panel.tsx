import { useMutation, useQuery } from '@tanstack/react-query';
import { DateInput } from '../../components/date-input';
import { useState } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { Earnings, GroupBy } from '../../api/wire';
import { MoneyBarChart } from '../../components/charts';
import { DataTable } from '../../components/data-table';
import { Money } from '../../components/money';
import { ErrorMessage, QueryView } from '../../components/states';
import { saveBlob } from '../../lib/download';
import { formatCount, lastDays } from '../../lib/format';
import { moneyColumn } from '../../components/columns';

const GROUPINGS: Array<{ value: GroupBy; label: string }> = [
  { value: 'day', label: 'By day' },
  { value: 'model', label: 'By model' },
  { value: 'day,model', label: 'By day and model' },
];
const DEFAULT_RANGE_DAYS = 30;

type Row = Earnings['rows'][number];

function rowKey(row: Row): string {
  return `${row.day ?? ''}|${row.model ?? ''}`;
}

/** Earnings over a UTC range ([from, to)) and a grouping: chart, table and CSV of the same rows. */
export function EarningsPanel({ contributorId, initialGroupBy = 'day', title = 'Earnings' }: { contributorId: string; initialGroupBy?: GroupBy; title?: string }) {
  const headingId = `earnings-${contributorId}-${initialGroupBy}`;
  const initial = lastDays(DEFAULT_RANGE_DAYS);
  const [from, setFrom] = useState(initial.from);
  const [to, setTo] = useState(initial.to);
  const [groupBy, setGroupBy] = useState<GroupBy>(initialGroupBy);
  const earnings = useQuery({ queryKey: queryKeys.earnings(contributorId, groupBy, from, to), queryFn: () => api.earnings(contributorId, groupBy, from, to) });
  const csv = useMutation({
    mutationFn: () => api.earningsCsv(contributorId, groupBy, from, to),
    onSuccess: ({ blob, filename }) => saveBlob(blob, filename ?? `earnings-${contributorId}-${from}-${to}.csv`),
  });

  return (
    <section aria-labelledby={headingId} className="panel">
      <h2 id={headingId}>{title}</h2>
      <div className="controls">
        <DateInput label="From (UTC day)" value={from} onChange={setFrom} />
        <DateInput label="To (exclusive)" value={to} onChange={setTo} />
        <label>
          Group
          <select value={groupBy} onChange={(e) => setGroupBy(e.target.value as GroupBy)}>
            {GROUPINGS.map((g) => (
              <option key={g.value} value={g.value}>
                {g.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => csv.mutate()} disabled={csv.isPending}>
          Download CSV
        </button>
      </div>
      {csv.isError && <ErrorMessage error={csv.error} title="Download failed" />}
      <QueryView query={earnings} label="earnings">
        {(e) => (
          <>
            <p>
              <strong>{formatCount(e.totals.events)}</strong> events, earned <Money value={e.totals.earned_usd} /> on official cost{' '}
              <Money value={e.totals.official_usd} /> ({e.from.slice(0, 10)} to {e.to.slice(0, 10)}, UTC).
            </p>
            {e.rows.length > 0 && groupBy !== 'day,model' && (
              <MoneyBarChart
                title={groupBy === 'day' ? 'Earned per day' : 'Earned per model'}
                rows={e.rows}
                category={groupBy === 'day' ? 'day' : 'model'}
                series={[{ field: 'earned_usd', label: 'Earned', color: '#1d9a6c' }]}
              />
            )}
            <DataTable<Row>
              caption={`Earnings ${GROUPINGS.find((g) => g.value === groupBy)!.label.toLowerCase()}`} rows={e.rows} rowKey={rowKey} empty="No earnings in this range."
              columns={[
                ...(groupBy !== 'model' ? [{ header: 'Day', cell: (r: Row) => r.day }] : []),
                ...(groupBy !== 'day' ? [{ header: 'Model', cell: (r: Row) => r.model }] : []),
                { header: 'Events', numeric: true, cell: (r) => formatCount(r.events) },
                { header: 'Prompt tokens', numeric: true, cell: (r) => formatCount(r.prompt_tokens) },
                { header: 'Completion tokens', numeric: true, cell: (r) => formatCount(r.completion_tokens) },
                moneyColumn('Official cost', (r) => r.official_usd),
                moneyColumn('Earned', (r) => r.earned_usd),
              ]}
            />
          </>
        )}
      </QueryView>
    </section>
  );
}
