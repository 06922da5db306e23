// The usage explorer: who spent what, on which key and model, when (GET /v1/admin/usage-events
// with every filter, its CSV, and GET /v1/admin/usage/summary for the totals, the chart by day and
// the breakdowns).
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { SummaryGroupBy, UsageEventRow, UsageFilters, UsageSummary } from '../../api/wire';
import { MoneyBarChart } from '../../components/charts';
import { countColumn, moneyColumn, statusColumn, textColumn, timeColumn } from '../../components/columns';
import { DataTable } from '../../components/data-table';
import { DateInput } from '../../components/date-input';
import { PagedTable } from '../../components/paged-table';
import { PendingButton } from '../../components/pending-button';
import { ErrorMessage, QueryView } from '../../components/states';
import { MoneyStats, Stat, StatGrid } from '../../components/stat';
import { saveBlob } from '../../lib/download';
import { formatCount, lastDays } from '../../lib/format';

export const USAGE_SEARCH = ['status', 'user_id', 'contributor_id', 'model', 'key_id', 'from', 'to'] as const;
type UsageSearch = Partial<Record<(typeof USAGE_SEARCH)[number], string>>;

const DEFAULT_DAYS = 30;
const BREAKDOWNS: Array<{ value: SummaryGroupBy; label: string }> = [
  { value: 'model', label: 'Model' },
  { value: 'user', label: 'User' },
  { value: 'contributor', label: 'Contributor' },
  { value: 'key', label: 'API key (gateway)' },
  { value: 'day', label: 'Day' },
];
const TOTALS = [['Charged', 'charge_usd'], ['Official cost', 'official_usd'], ['Contributor payouts', 'payout_usd'], ['Margin', 'margin_usd']] as const;

/** The API's filters of the screen's search: days become UTC instants (to is exclusive). */
export function usageFilters(search: UsageSearch): UsageFilters {
  const range = lastDays(DEFAULT_DAYS);
  const { from = range.from, to = range.to, ...rest } = search;
  return { ...rest, from: `${from}T00:00:00Z`, to: `${to}T00:00:00Z` };
}

export function UsageScreen() {
  const search: UsageSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const filters = usageFilters(search);
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <UsageFilterForm search={search} onApply={(next) => void navigate({ to: '/usage', search: next })} />
      <UsageTotals filters={filters} />
      <Breakdown filters={filters} />
      <section aria-labelledby="usage-events-title">
        <h2 id="usage-events-title">Events, newest first</h2>
        <CsvDownload filters={filters} />
        <PagedTable<UsageEventRow>
          queryKey={queryKeys.usageEvents(filters)} fetchPage={(cursor) => api.usageEvents(filters, cursor)} what="usage events"
          caption="Usage events" rowKey={(e) => e.event_id} empty="No usage event matches these filters."
          columns={[
            timeColumn('Occurred', (e) => e.occurred_at),
            textColumn('Event', (e) => e.event_id),
            statusColumn((e) => e.status),
            textColumn('User', (e) => e.user_id),
            textColumn('Key', (e) => e.key_id),
            textColumn('Contributor', (e) => e.contributor_id),
            textColumn('Model', (e) => e.model),
            countColumn('Prompt tokens', (e) => e.usage.prompt_tokens),
            countColumn('Completion tokens', (e) => e.usage.completion_tokens),
            moneyColumn('Charged', (e) => e.charge_usd),
            moneyColumn('Payout', (e) => e.payout_usd),
            moneyColumn('Margin', (e) => e.margin_usd),
          ]}
        />
      </section>
    </section>
  );
}

function UsageFilterForm({ search, onApply }: { search: UsageSearch; onApply: (next: UsageSearch) => void }) {
  const range = lastDays(DEFAULT_DAYS);
  const [draft, setDraft] = useState<UsageSearch>({ from: range.from, to: range.to, ...search });
  const field = (name: keyof UsageSearch, label: string) => (
    <label>
      {label}
      <input type="text" value={draft[name] ?? ''} onChange={(e) => setDraft({ ...draft, [name]: e.target.value.trim() || undefined })} />
    </label>
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== undefined && v !== '')));
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Usage filters">
      <DateInput label="From (UTC day)" value={draft.from ?? range.from} onChange={(from) => setDraft({ ...draft, from })} />
      <DateInput label="To (exclusive)" value={draft.to ?? range.to} onChange={(to) => setDraft({ ...draft, to })} />
      {field('user_id', 'User')}
      {field('key_id', 'API key (gateway)')}
      {field('model', 'Model')}
      {field('contributor_id', 'Contributor')}
      <label>
        Status
        <select value={draft.status ?? ''} onChange={(e) => setDraft({ ...draft, status: e.target.value || undefined })}>
          <option value="">any</option>
          <option value="priced">priced</option>
          <option value="unpriced">unpriced</option>
        </select>
      </label>
      <button type="submit">Apply filters</button>
    </form>
  );
}

function UsageTotals({ filters }: { filters: UsageFilters }) {
  const byDay = useQuery({ queryKey: queryKeys.usageSummary('day', filters), queryFn: () => api.usageSummary('day', filters) });
  return (
    <section aria-labelledby="usage-totals-title">
      <h2 id="usage-totals-title">Totals of priced events</h2>
      <QueryView query={byDay} label="the usage totals">
        {(s) => (
          <>
            <StatGrid label="Usage totals">
              <Stat label="Events" name="events">
                <span data-value={String(s.totals.events)}>{formatCount(s.totals.events)}</span>
              </Stat>
              <MoneyStats of={s.totals} figures={TOTALS} />
            </StatGrid>
            <MoneyBarChart title="Charged per day (UTC)" rows={s.data.map((d) => ({ ...d, day: d.key ?? '' }))} category="day" series={[{ field: 'charge_usd', label: 'Charged', color: '#3563e9' }]} />
          </>
        )}
      </QueryView>
    </section>
  );
}

function Breakdown({ filters }: { filters: UsageFilters }) {
  const [groupBy, setGroupBy] = useState<SummaryGroupBy>('model');
  const summary = useQuery({ queryKey: queryKeys.usageSummary(groupBy, filters), queryFn: () => api.usageSummary(groupBy, filters) });
  const label = BREAKDOWNS.find((b) => b.value === groupBy)!.label;
  return (
    <section aria-labelledby="usage-breakdown-title">
      <h2 id="usage-breakdown-title">Breakdown</h2>
      <label>
        By{' '}
        <select aria-label="Breakdown by" value={groupBy} onChange={(e) => setGroupBy(e.target.value as SummaryGroupBy)}>
          {BREAKDOWNS.map((b) => (
            <option key={b.value} value={b.value}>{b.label}</option>
          ))}
        </select>
      </label>
      <QueryView query={summary} label="the breakdown">
        {(s) => (
          <DataTable<UsageSummary['data'][number]>
            caption={`Priced usage by ${label.toLowerCase()}`} rows={s.data} rowKey={(r) => r.key ?? '(none)'} empty="No priced usage in this selection."
            columns={[
              textColumn(label, (r) => r.key ?? '(none)'),
              countColumn('Events', (r) => r.events),
              countColumn('Prompt tokens', (r) => r.prompt_tokens),
              countColumn('Completion tokens', (r) => r.completion_tokens),
              moneyColumn('Charged', (r) => r.charge_usd),
              moneyColumn('Official cost', (r) => r.official_usd),
              moneyColumn('Payouts', (r) => r.payout_usd),
              moneyColumn('Margin', (r) => r.margin_usd),
            ]}
          />
        )}
      </QueryView>
    </section>
  );
}

function CsvDownload({ filters }: { filters: UsageFilters }) {
  const download = useMutation({
    mutationFn: () => api.usageEventsCsv(filters),
    onSuccess: ({ blob, filename }) => saveBlob(blob, filename ?? 'usage-events.csv'),
  });
  return (
    <p>
      <PendingButton pending={download.isPending} pendingLabel="Preparing CSV…" onClick={() => download.mutate()}>
        Download CSV
      </PendingButton>
      {download.isError && <ErrorMessage error={download.error} title="Could not download the CSV" />}
    </p>
  );
}
