import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { PlannedLine, Settlement, SettlementCreated } from '../../api/wire';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { PagedTable } from '../../components/paged-table';
import { DataTable } from '../../components/data-table';
import { Money } from '../../components/money';
import { ErrorMessage, Loading } from '../../components/states';
import { formatTimestamp, shortHash } from '../../lib/format';
import { moneyColumn, statusColumn, timeColumn } from '../../components/columns';

function PlannedLines({ plan }: { plan: SettlementCreated }) {
  return (
    <>
      <p data-dry-run-total={plan.total_usdc}>
        {plan.payout_count} payouts, total <Money value={plan.total_usdc} unit="USDC" />
        {plan.requires_approval ? ' — above the approval threshold: it will wait for approval.' : '.'}
      </p>
      <DataTable<PlannedLine>
        caption="Dry run: who would be paid" rows={plan.lines ?? []} rowKey={(l) => l.contributor_id} empty="Nobody qualifies (payable below the minimum, suspended, or nothing owed)."
        columns={[
          { header: 'Contributor', cell: (l) => l.contributor_id },
          { header: 'Payout address', cell: (l) => <code title={l.payout_address}>{shortHash(l.payout_address)}</code> },
          moneyColumn('Amount', (l) => l.amount_usdc, 'USDC'),
        ]}
      />
    </>
  );
}

export function SettlementsScreen() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const dryRun = useMutation({ mutationFn: () => api.createSettlement(true) });
  const create = useMutation({
    mutationFn: () => api.createSettlement(false),
    onSuccess: async (created) => {
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: queryKeys.settlements });
      await queryClient.invalidateQueries({ queryKey: queryKeys.overview });
      if (created.settlement_id) await navigate({ to: '/settlements/$settlementId', params: { settlementId: created.settlement_id } });
      else setNotice('Nobody qualifies for a payout now: no settlement was created.');
    },
  });
  const openCreate = () => {
    setNotice(null);
    create.reset();
    dryRun.mutate();
    setConfirming(true);
  };

  return (
    <section aria-labelledby="settlements-title">
      <h1 id="settlements-title">Settlements</h1>
      <div className="actions">
        <button type="button" onClick={() => dryRun.mutate()} disabled={dryRun.isPending}>
          Dry run
        </button>
        <button type="button" className="primary" onClick={openCreate} disabled={create.isPending}>
          Create settlement
        </button>
      </div>
      {notice && <p role="status">{notice}</p>}
      {!confirming && dryRun.isPending && <Loading label="Computing the dry run" />}
      {!confirming && dryRun.isError && <ErrorMessage error={dryRun.error} title="Dry run failed" />}
      {!confirming && dryRun.isSuccess && (
        <section className="panel" aria-label="Dry run result">
          <h2>Dry run</h2>
          <PlannedLines plan={dryRun.data} />
        </section>
      )}
      <ConfirmDialog
        open={confirming} busy={create.isPending} onConfirm={() => create.mutate()} onCancel={() => setConfirming(false)}
        title="Create a settlement?" confirmLabel="Create settlement"
      >
        <p>Each line’s payable amount moves to “in settlement” now and is paid in USDC on chain.</p>
        {dryRun.isPending && <Loading label="Computing who would be paid" />}
        {dryRun.isError && <ErrorMessage error={dryRun.error} />}
        {dryRun.isSuccess && <PlannedLines plan={dryRun.data} />}
        {create.isError && <ErrorMessage error={create.error} title="Not created" />}
      </ConfirmDialog>
      <PagedTable<Settlement>
        queryKey={queryKeys.settlements} fetchPage={api.settlements} what="settlements"
        caption="Settlements, newest first" rowKey={(s) => s.settlement_id} empty="No settlements yet."
        columns={[
          { header: 'Created', cell: (s) => <Link to="/settlements/$settlementId" params={{ settlementId: s.settlement_id }}>{formatTimestamp(s.created_at)}</Link> },
          statusColumn((s) => s.status),
          { header: 'Trigger', cell: (s) => s.trigger },
          { header: 'Payouts', numeric: true, cell: (s) => s.payout_count },
          moneyColumn('Total', (s) => s.total_usdc, 'USDC'),
          timeColumn('Completed', (s) => s.completed_at),
        ]}
      />
    </section>
  );
}
