import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { UnpricedModel } from '../../api/wire';
import { DataTable } from '../../components/data-table';
import { ErrorMessage, QueryView } from '../../components/states';
import { formatCount } from '../../lib/format';
import { CatalogImport, PriceForm } from './price-form';
import { timeColumn } from '../../components/columns';
import { Panel } from '../../components/panel';
import { PendingButton } from '../../components/pending-button';

export function UnpricedScreen() {
  const queryClient = useQueryClient();
  const [pricing, setPricing] = useState<UnpricedModel | null>(null);
  const unpriced = useQuery({ queryKey: queryKeys.unpriced, queryFn: api.unpricedByModel });
  const reprice = useMutation({
    mutationFn: api.reprice,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.unpriced });
      await queryClient.invalidateQueries({ queryKey: queryKeys.overview });
    },
  });

  return (
    <section aria-labelledby="unpriced-title">
      <h1 id="unpriced-title">Unpriced events</h1>
      <p className="muted">
        Events whose model had no price in force when they occurred are stored, not charged. Add the price (in force from before the first event), then
        reprice.
      </p>
      <QueryView query={unpriced} label="unpriced events">
        {(u) => (
          <DataTable<UnpricedModel>
            caption="Unpriced events by model" rows={u.data} rowKey={(m) => m.model} empty="Every event is priced."
            columns={[
              { header: 'Model', cell: (m) => <code>{m.model}</code> },
              { header: 'Events', numeric: true, cell: (m) => formatCount(m.events) },
              timeColumn('First', (m) => m.first_occurred_at),
              timeColumn('Last', (m) => m.last_occurred_at),
              {
                header: 'Action',
                cell: (m) => (
                  <button type="button" onClick={() => setPricing(m)} aria-label={`Add a price for ${m.model}`}>
                    Add price
                  </button>
                ),
              },
            ]}
          />
        )}
      </QueryView>
      {pricing && (
        <section className="panel" aria-labelledby="add-price-title">
          <h2 id="add-price-title">Price for {pricing.model}</h2>
          <PriceForm key={pricing.model} model={pricing.model} effectiveFrom={pricing.first_occurred_at} />
        </section>
      )}
      <Panel id="reprice-title" title="Reprice">
        <PendingButton className="primary" onClick={() => reprice.mutate()} pending={reprice.isPending} pendingLabel="Repricing…">
          Reprice unpriced events
        </PendingButton>
        {reprice.isSuccess && (
          <p role="status" data-reprice-result data-reprice-in-progress={reprice.data.in_progress === true ? 'true' : 'false'}>
            {reprice.data.in_progress === true
              ? `Another reprice is running: this one priced nothing; that run is pricing them (${formatCount(reprice.data.still_unpriced)} still unpriced). Try again in a moment to see its result.`
              : `Priced ${formatCount(reprice.data.priced)} events; ${formatCount(reprice.data.still_unpriced)} still unpriced.`}
          </p>
        )}
        {reprice.isError && <ErrorMessage error={reprice.error} title="Reprice failed" />}
      </Panel>
      <Panel id="import-title" title="Import the catalog">
        <CatalogImport />
      </Panel>
    </section>
  );
}
