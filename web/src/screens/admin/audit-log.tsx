import { useInfiniteQuery } from '@tanstack/react-query';
import { api, queryKeys } from '../../api/endpoints';
import type { AuditEntry } from '../../api/wire';
import { DataTable } from '../../components/data-table';
import { ErrorMessage, Loading } from '../../components/states';
import { formatTimestamp } from '../../lib/format';

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
  const log = useInfiniteQuery({
    queryKey: queryKeys.auditLog,
    queryFn: ({ pageParam }) => api.auditLog(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      {log.isPending ? (
        <Loading label="Loading the audit log" />
      ) : log.isError ? (
        <ErrorMessage error={log.error} title="Could not load the audit log" />
      ) : (
        <>
          <DataTable<AuditEntry>
            caption="Admin actions, newest first"
            rows={log.data.pages.flatMap((p) => p.data)}
            rowKey={(e) => e.id}
            empty="No admin action recorded yet."
            columns={[
              { header: 'When', cell: (e) => formatTimestamp(e.created_at) },
              { header: 'Who', cell: (e) => `${e.actor_role}${e.actor_id ? ` ${e.actor_id}` : ''}` },
              { header: 'Action', cell: (e) => <code>{e.action}</code> },
              { header: 'Target', cell: (e) => e.target ?? '' },
              { header: 'Change', cell: (e) => <Change entry={e} /> },
            ]}
          />
          {log.hasNextPage && (
            <button type="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
              Load more
            </button>
          )}
        </>
      )}
    </section>
  );
}
