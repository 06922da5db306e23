import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { SettlementLine, SettlementTx } from '../../api/wire';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { DataTable } from '../../components/data-table';
import { Money } from '../../components/money';
import { ErrorMessage, QueryView } from '../../components/states';
import { Stat, StatGrid } from '../../components/stat';
import { StatusBadge } from '../../components/status-badge';
import { formatTimestamp, shortHash } from '../../lib/format';
import { ReconciliationPanel } from './reconciliation-panel';
import { contributorColumn, moneyColumn, statusColumn, txColumn } from '../../components/columns';

const route = getRouteApi('/settlements/$settlementId');
/** Still moving: the page polls until the worker has finished with it. */
const IN_FLIGHT = new Set(['queued', 'submitting']);
const POLL_MS = 1_000;

export function SettlementDetailScreen() {
  const { settlementId } = route.useParams();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const settlement = useQuery({
    queryKey: queryKeys.settlement(settlementId),
    queryFn: () => api.settlement(settlementId),
    refetchInterval: (query) => (query.state.data && IN_FLIGHT.has(query.state.data.status) ? POLL_MS : false),
  });
  const approve = useMutation({
    mutationFn: () => api.approveSettlement(settlementId),
    onSuccess: async () => {
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: queryKeys.settlement(settlementId) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.settlements });
    },
  });

  return (
    <section aria-labelledby="settlement-title">
      <p>
        <Link to="/settlements">← Settlements</Link>
      </p>
      <h1 id="settlement-title">Settlement {shortHash(settlementId, 4)}</h1>
      <QueryView query={settlement} label="the settlement">
        {(s) => (
          <>
            <p>
              <span data-settlement-status={s.status}>
                <StatusBadge status={s.status} />
              </span>{' '}
              created {formatTimestamp(s.created_at)} ({s.trigger})
              {s.approved_by && ` · approved by ${s.approved_by} at ${formatTimestamp(s.approved_at)}`}
              {IN_FLIGHT.has(s.status) && <span role="status"> · waiting for the chain…</span>}
            </p>
            {s.last_error && (
              <p className="error-message" role="alert">
                {s.last_error}
              </p>
            )}
            <StatGrid label="Settlement totals">
              <Stat label="Payouts" name="payout_count">{s.payout_count}</Stat>
              <Stat label="Total" name="total_usdc"><Money value={s.total_usdc} unit="USDC" /></Stat>
              <Stat label="Completed" name="completed_at">{formatTimestamp(s.completed_at)}</Stat>
            </StatGrid>
            {s.status === 'pending_approval' && (
              <div className="actions">
                <button type="button" className="primary" onClick={() => setConfirming(true)}>
                  Approve…
                </button>
              </div>
            )}
            <ConfirmDialog
              open={confirming} busy={approve.isPending} onConfirm={() => approve.mutate()} onCancel={() => setConfirming(false)}
              title="Approve this settlement?" confirmLabel={`Approve and pay ${s.total_usdc} USDC`}
            >
              <p>
                {s.payout_count} payouts, total <Money value={s.total_usdc} unit="USDC" />, will be sent on chain from the hot wallet.
              </p>
              {approve.isError && <ErrorMessage error={approve.error} title="Not approved" />}
            </ConfirmDialog>
            <DataTable<SettlementLine>
              caption="Lines" rows={s.lines} rowKey={(l) => l.line_id} empty="No lines."
              columns={[
                contributorColumn((l) => l.contributor_id),
                { header: 'Address', cell: (l) => <code title={l.payout_address}>{shortHash(l.payout_address)}</code> },
                moneyColumn('Amount', (l) => l.amount_usdc, 'USDC'),
                statusColumn((l) => l.status),
                txColumn((l) => l.tx_hash),
                { header: 'Failure reason', cell: (l) => (l.failure_reason ? <span className="error-message">{l.failure_reason}</span> : '') },
              ]}
            />
            <DataTable<SettlementTx>
              caption="Transactions" rows={s.transactions} rowKey={(t) => t.tx_hash} empty="No transaction sent yet."
              columns={[
                txColumn((t) => t.hash ?? t.tx_hash, 'Hash'),
                { header: 'Nonce', numeric: true, cell: (t) => t.nonce },
                statusColumn((t) => t.status),
                { header: 'Block', numeric: true, cell: (t) => t.block_number ?? '—' },
                { header: 'Gas used', numeric: true, cell: (t) => t.gas_used ?? '—' },
                { header: 'Lines', numeric: true, cell: (t) => t.line_count },
                { header: 'Final', cell: (t) => (t.final ? 'yes' : 'not yet') },
                { header: 'Error', cell: (t) => t.error ?? '' },
              ]}
            />
            <ReconciliationPanel settlementId={s.settlement_id} reconciliation={s.reconciliation} />
          </>
        )}
      </QueryView>
    </section>
  );
}
