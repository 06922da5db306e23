import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import { DataTable } from '../../components/data-table';
import { ErrorMessage, FormFooter } from '../../components/states';
import { StatusBadge } from '../../components/status-badge';
import { formatTimestamp, shortHash } from '../../lib/format';
import { reconciliationOf } from '../../lib/console-forms';
import { moneyColumn, txColumn } from '../../components/columns';

/**
 * The settlement's stored reconciliation (USDC Transfer logs vs paid lines). A failed one can be
 * accepted with a reason after investigation (audited; the stored findings are not changed).
 */
export function ReconciliationPanel({ settlementId, reconciliation }: { settlementId: string; reconciliation: unknown }) {
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const resolve = useMutation({
    mutationFn: (text: string) => api.resolveReconciliation(settlementId, text),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.settlement(settlementId) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.ledgerCheck });
    },
  });
  const r = reconciliationOf(reconciliation);
  if (!r) return null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!reason.trim()) return setProblem('a reason is required');
    setProblem(null);
    resolve.mutate(reason.trim());
  };
  return (
    <section className="panel" aria-labelledby="reconciliation-title" data-reconciliation-ok={r.ok ? 'true' : 'false'}>
      <h2 id="reconciliation-title">
        Reconciliation <StatusBadge status={r.ok ? 'ok' : 'failed'} />
      </h2>
      <p className="small">
        Checked {formatTimestamp(r.checked_at)}: {r.paid_lines ?? '—'} paid lines, {r.chain_payouts ?? '—'} transfers on chain
        {r.missing_on_chain ? `, ${r.missing_on_chain} missing on chain` : ''}
        {r.unexpected_on_chain ? `, ${r.unexpected_on_chain} unexpected on chain` : ''}
        {r.funding_mismatches ? `, ${r.funding_mismatches} funding mismatches` : ''}.
      </p>
      {r.differences.length > 0 && (
        <DataTable<(typeof r.differences)[number]>
          caption="Reconciliation differences" rows={r.differences} rowKey={(d) => `${d.kind}|${d.tx_hash}|${d.recipient ?? ''}|${d.line_id ?? ''}|${d.amount_micro_usdc}`}
          columns={[
            { header: 'Kind', cell: (d) => d.kind.replace(/_/g, ' ') },
            txColumn((d) => d.tx_hash),
            { header: 'Recipient', cell: (d) => (d.recipient ? <code title={d.recipient}>{shortHash(d.recipient)}</code> : '') },
            moneyColumn('Amount', (d) => d.amount_usdc, 'USDC'),
            { header: 'Line', cell: (d) => d.line_id ?? '' },
          ]}
        />
      )}
      {!r.ok && (
        <form onSubmit={submit} aria-label="Resolve the failed reconciliation" className="form-grid">
          <label htmlFor="resolve-reason">Reason (what the investigation found)</label>
          <textarea id="resolve-reason" value={reason} onChange={(e) => setReason(e.target.value)} rows={3} />
          <FormFooter pending={resolve.isPending} label="Accept these findings" pendingLabel="Resolving…" problem={problem} error={resolve.isError ? resolve.error : null} errorTitle="Not resolved" />
          {resolve.isSuccess && (
            <p role="status">
              Resolved by {resolve.data.resolved_by} at {formatTimestamp(resolve.data.resolved_at)}: the ledger check counts this failure as resolved while later
              reconciliations find exactly the same.
            </p>
          )}
        </form>
      )}
    </section>
  );
}
