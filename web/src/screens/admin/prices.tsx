import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { api, queryKeys } from '../../api/endpoints';
import type { Price, PriceInForce } from '../../api/wire';

/** A version in force carries its next one; a scheduled or past version does not. */
type PriceRow = Price & Partial<Pick<PriceInForce, 'next'>>;
import { DataTable, type Column } from '../../components/data-table';
import { QueryView } from '../../components/states';
import { formatTimestamp } from '../../lib/format';
import { CatalogImport, PriceForm } from './price-form';
import { moneyColumn, timeColumn } from '../../components/columns';
import { Panel } from '../../components/panel';

const route = getRouteApi('/prices');

/** "> 200000: input 6, output 22.5" per tier: the whole request is priced at the highest one it passes. */
export function tierSummary(p: Price): string {
  return (p.tiers ?? [])
    .map((tier) => {
      const prices = Object.entries(tier)
        .filter(([key]) => key.endsWith('_usd_per_mtok'))
        .map(([key, value]) => `${key.replace(/_usd_per_mtok$/, '').replace(/_/g, ' ')} ${String(value)}`);
      return `${tier.inclusive === true ? '>=' : '>'} ${String(tier.above_input_tokens)}: ${prices.join(', ')}`;
    })
    .join('; ');
}

/** "web search 0.01 per call; request 0.002": the fees as the API sent them (decimal strings). */
export function feeSummary(p: Price): string {
  const parts: string[] = [];
  if (p.web_search_usd_per_call) parts.push(`web search ${p.web_search_usd_per_call} ${p.web_search_billing === 'per_request' ? 'per request' : 'per call'}`);
  if (p.request_usd) parts.push(`request ${p.request_usd}`);
  return parts.join('; ');
}

/** Columns of a price version; variants and tiers arrive as fields and show once present. */
function priceColumns(rows: PriceRow[], withModelLink: boolean): Array<Column<PriceRow>> {
  return [
    {
      header: 'Model',
      cell: (p) => (withModelLink ? <Link to="/prices" search={{ model: p.model }}>{p.model}</Link> : <code>{p.model}</code>),
    },
    ...(rows.some((p) => p.variant !== undefined) ? [{ header: 'Variant', cell: (p: Price) => p.variant }] : []),
    moneyColumn('Input / 1M', (p) => p.input_usd_per_mtok),
    moneyColumn('Output / 1M', (p) => p.output_usd_per_mtok),
    moneyColumn('Cached input / 1M', (p) => p.cached_input_usd_per_mtok),
    ...(rows.some((p) => (p.tiers?.length ?? 0) > 0) ? [{ header: 'Context tiers (prompt tokens)', cell: (p: Price) => tierSummary(p) }] : []),
    ...(rows.some((p) => p.web_search_usd_per_call || p.request_usd) ? [{ header: 'Fees', cell: (p: Price) => feeSummary(p) }] : []),
    timeColumn('In force from', (p) => p.effective_from),
    { header: 'Source', cell: (p) => p.source },
    { header: 'Next version', cell: (p) => (p.next ? formatTimestamp(p.next.effective_from) : '') },
  ];
}

function PriceHistory({ model }: { model: string }) {
  const history = useQuery({ queryKey: queryKeys.priceHistory(model), queryFn: () => api.priceHistory(model) });
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">History of {model}</h2>
      <p>
        <Link to="/prices" search={{}}>
          ← All current prices
        </Link>
      </p>
      <QueryView query={history} label={`the history of ${model}`}>
        {(h) => <DataTable<PriceRow> caption={`Price versions of ${model}, oldest first`} rows={h.data} rowKey={(p) => p.id} empty="No version of this model." columns={priceColumns(h.data, false)} />}
      </QueryView>
    </section>
  );
}

export function PricesScreen() {
  const { model } = route.useSearch();
  const prices = useQuery({ queryKey: queryKeys.prices, queryFn: api.prices, enabled: model === undefined });
  return (
    <section aria-labelledby="prices-title">
      <h1 id="prices-title">Prices</h1>
      {model !== undefined ? (
        <PriceHistory model={model} />
      ) : (
        <QueryView query={prices} label="prices">
          {(p) => (
            <>
              <DataTable<PriceRow> caption="Prices in force now (USD per million tokens)" rows={p.data} rowKey={(x) => x.id} empty="No prices yet: add one or import the catalog." columns={priceColumns(p.data, true)} />
              {(p.upcoming?.length ?? 0) > 0 && (
                <DataTable<PriceRow> caption="Scheduled: models whose first price is in the future" rows={p.upcoming!} rowKey={(x) => x.id} columns={priceColumns(p.upcoming!, true)} />
              )}
            </>
          )}
        </QueryView>
      )}
      <div className="two-columns">
        <Panel id="new-price-title" title="Add a price version">
          <PriceForm model={model ?? ''} />
        </Panel>
        <Panel id="catalog-title" title="Import the catalog">
          <CatalogImport />
        </Panel>
      </div>
    </section>
  );
}
