import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { api, queryKeys } from '../../api/endpoints';
import { MoneyBarChart } from '../../components/charts';
import { DataTable } from '../../components/data-table';
import { Money } from '../../components/money';
import { QueryView } from '../../components/states';
import { MoneyStats, Stat, StatGrid } from '../../components/stat';
import { StatusBadge } from '../../components/status-badge';
import { formatCount, formatTimestamp, lastDays, shortHash } from '../../lib/format';
import { formatDecimal } from '../../money/decimal';
import { moneyColumn } from '../../components/columns';

/**
 * The platform totals, in the order the operators read them (breakage, revenue from expired credit
 * grants, right after the margin; the grants' part right after the balances that count it).
 */
const PLATFORM_TOTALS = [['Charged to users', 'charged_usd'], ['Revenue (margin)', 'revenue_usd'], ['Breakage (expired grants)', 'breakage_usd'], ['User balances', 'users_balance_usd'], ['Of which credit grants', 'granted_usd'], ['Held for streams', 'held_usd'], ['Payable to contributors', 'contributors_payable_usd'], ['In settlement', 'in_settlement_usd'], ['Paid out', 'paid_usd']] as const;

/** The chart's periods; the choice is in the address (?days=), so a link keeps it. */
const PERIODS = [7, 30, 90, 365] as const;
const DEFAULT_DAYS = 30;

export function OverviewScreen() {
  const overview = useQuery({ queryKey: queryKeys.overview, queryFn: api.overview });
  const { days: daysText }: { days?: string } = useSearch({ strict: false });
  const navigate = useNavigate();
  const days = PERIODS.find((p) => String(p) === daysText) ?? DEFAULT_DAYS;
  const range = lastDays(days);
  const daily = useQuery({ queryKey: queryKeys.overviewDaily(range.from, range.to), queryFn: () => api.overviewDaily(range.from, range.to) });

  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <QueryView query={overview} label="the overview">
        {(o) => (
          <>
            <StatGrid label="Platform totals">
              <MoneyStats of={o} figures={PLATFORM_TOTALS} />
              <Stat label="Unpriced events" name="unpriced_events">
                <span data-value={String(o.unpriced_events)}>
                  {o.unpriced_events > 0 ? <Link to="/unpriced">{formatCount(o.unpriced_events)}</Link> : formatCount(o.unpriced_events)}
                </span>
              </Stat>
            </StatGrid>
            <div className="two-columns">
              <section aria-labelledby="wallet-title" className="panel">
                <h2 id="wallet-title">Hot wallet</h2>
                {o.hot_wallet === null ? (
                  <p className="muted">Settlement is not configured (no RPC_URL, USDC_ADDRESS, PAYOUT_CONTRACT_ADDRESS, PAYOUT_PRIVATE_KEY).</p>
                ) : (
                  <StatGrid label="Hot wallet">
                    <Stat label="Address" name="hot_wallet.address"><code title={o.hot_wallet.address}>{shortHash(o.hot_wallet.address)}</code></Stat>
                    <Stat label="USDC" name="hot_wallet.usdc"><Money value={o.hot_wallet.usdc} unit="USDC" /></Stat>
                    <Stat label="Gas (native)" name="hot_wallet.native">
                      <span data-value={o.hot_wallet.native ?? ''} title={o.hot_wallet.native ?? undefined}>
                        {o.hot_wallet.native === null ? '—' : formatDecimal(o.hot_wallet.native, { minDecimals: 2, maxDecimals: 6 })}
                      </span>
                    </Stat>
                  </StatGrid>
                )}
                {o.hot_wallet?.error && <p role="alert" className="error-message">{o.hot_wallet.error}</p>}
              </section>
              <section aria-labelledby="last-settlement-title" className="panel">
                <h2 id="last-settlement-title">Last settlement</h2>
                {o.last_settlement === null ? (
                  <p className="empty">No settlement yet.</p>
                ) : (
                  <p>
                    <Link to="/settlements/$settlementId" params={{ settlementId: o.last_settlement.settlement_id }}>
                      {formatTimestamp(o.last_settlement.created_at)}
                    </Link>{' '}
                    <StatusBadge status={o.last_settlement.status} /> {o.last_settlement.payout_count} payouts,{' '}
                    <Money value={o.last_settlement.total_usdc} unit="USDC" /> ({o.last_settlement.trigger})
                  </p>
                )}
              </section>
            </div>
          </>
        )}
      </QueryView>
      <section aria-labelledby="daily-title">
        <h2 id="daily-title">Charged and paid out per day (last {days} days, UTC)</h2>
        <label>
          Period{' '}
          <select value={days} onChange={(e) => void navigate({ to: '/overview', search: { days: e.target.value } })}>
            {PERIODS.map((p) => (
              <option key={p} value={p}>last {p} days</option>
            ))}
          </select>
        </label>
        <QueryView query={daily} label="the daily figures">
          {(d) => (
            <>
              <MoneyBarChart
                title="Charged vs paid out per day"
                rows={d.rows}
                category="day"
                series={[
                  { field: 'charged_usd', label: 'Charged', color: '#3563e9' },
                  { field: 'paid_usd', label: 'Paid out', color: '#1d9a6c' },
                ]}
              />
              <details>
                <summary>Daily figures as a table</summary>
                <DataTable<(typeof d.rows)[number]>
                  caption="Charged, revenue and paid out per day" rows={d.rows.filter((r) => r.charged_usd !== '0' || r.paid_usd !== '0')} rowKey={(r) => r.day} empty="No usage or payouts in this range."
                  columns={[
                    { header: 'Day', cell: (r) => r.day },
                    moneyColumn('Charged', (r) => r.charged_usd),
                    moneyColumn('Revenue', (r) => r.revenue_usd),
                    moneyColumn('Contributor earnings', (r) => r.earned_usd),
                    moneyColumn('Paid out', (r) => r.paid_usd),
                  ]}
                />
              </details>
            </>
          )}
        </QueryView>
      </section>
    </section>
  );
}
