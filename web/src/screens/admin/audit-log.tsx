import { api, queryKeys } from '../../api/endpoints';
import type { AuditEntry } from '../../api/wire';
import { PagedTable } from '../../components/paged-table';
import { timeColumn } from '../../components/columns';

function Change({ entry }: { entry: AuditEntry }) {
  if (entry.before === null && entry.after === null) return null;
  return (
    <details>
      <summary>before / after</summary>
      <pre className="json">{JSON.stringify({ before: entry.before, after: entry.after }, null, 2)}</pre>
    </details>
  );
}

export function AuditLogScreen() {
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <PagedTable<AuditEntry>
        queryKey={queryKeys.auditLog} fetchPage={api.auditLog} what="the audit log"
        caption="Admin actions, newest first" rowKey={(e) => e.id} empty="No admin action recorded yet."
        columns={[
          timeColumn('When', (e) => e.created_at),
          { header: 'Who', cell: (e) => `${e.actor_role}${e.actor_id ? ` ${e.actor_id}` : ''}` },
          { header: 'Action', cell: (e) => <code>{e.action}</code> },
          { header: 'Target', cell: (e) => e.target ?? '' },
          { header: 'Change', cell: (e) => <Change entry={e} /> },
        ]}
      />
    </section>
  );
}
