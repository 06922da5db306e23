import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { CreatedWebhook, WebhookDelivery, WebhookEndpoint } from '../../api/wire';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { PagedTable } from '../../components/paged-table';
import { DataTable } from '../../components/data-table';
import { ErrorMessage, QueryView, FormFooter } from '../../components/states';
import { webhookBody } from '../../lib/console-forms';
import { formatCount } from '../../lib/format';
import { statusColumn, timeColumn } from '../../components/columns';
import { Panel } from '../../components/panel';
import { PendingButton } from '../../components/pending-button';

/** Registers an endpoint; the whsec_ secret is in this answer only, so it is shown once, here. */
function WebhookCreateForm() {
  const queryClient = useQueryClient();
  const types = useQuery({ queryKey: ['webhook-event-types'], queryFn: api.webhookEventTypes, staleTime: Infinity });
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const create = useMutation({
    mutationFn: api.createWebhook,
    onSuccess: async (endpoint) => {
      setCreated(endpoint);
      setUrl('');
      setDescription('');
      setEvents([]);
      await queryClient.invalidateQueries({ queryKey: queryKeys.webhooks });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = webhookBody({ url, events, description });
    if ('problem' in result) return setProblem(result.problem);
    setProblem(null);
    setCreated(null);
    create.mutate(result.body);
  };
  return (
    <form onSubmit={submit} aria-label="Add a webhook endpoint" className="form-grid">
      <label htmlFor="webhook-url">URL</label>
      <input id="webhook-url" value={url} onChange={(e) => setUrl(e.target.value)} spellCheck={false} required placeholder="https://example.com/hooks" />
      <label htmlFor="webhook-description">Description (optional)</label>
      <input id="webhook-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <fieldset>
        <legend>Event types</legend>
        <QueryView query={types} label="the event types">
          {(t) => (
            <div className="checkbox-list">
              {t.data.map(({ type }) => (
                <label key={type}>
                  <input
                    type="checkbox"
                    checked={events.includes(type)}
                    onChange={(e) => setEvents(e.target.checked ? [...events, type] : events.filter((x) => x !== type))}
                  />{' '}
                  <code>{type}</code>
                </label>
              ))}
            </div>
          )}
        </QueryView>
      </fieldset>
      <FormFooter pending={create.isPending} label="Add endpoint" pendingLabel="Adding…" problem={problem} error={create.isError ? create.error : null} errorTitle="Endpoint not added" />
      {created && (
        <div role="status" className="secret-once" data-webhook-created={created.id}>
          <p>
            Endpoint <code>{created.url}</code> added. Its signing secret is shown <strong>only now</strong>: keep it where the receiver verifies deliveries.
          </p>
          <p>
            <code data-webhook-secret>{created.secret}</code>
          </p>
          <button type="button" onClick={() => setCreated(null)}>
            I have stored it
          </button>
        </div>
      )}
    </form>
  );
}

function EndpointActions({ endpoint, onShowDeliveries }: { endpoint: WebhookEndpoint; onShowDeliveries: () => void }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks });
  // DELETE: the endpoint is removed (nothing more is sent; its delivery log stays in the database).
  const remove = useMutation({ mutationFn: () => api.removeWebhook(endpoint.id), onSuccess: async () => { setConfirming(false); await refresh(); } });
  // Enable: an endpoint the service disabled (failing for 24 hours, or 410 Gone) goes back in service.
  const enable = useMutation({ mutationFn: () => api.enableWebhook(endpoint.id), onSuccess: refresh });
  return (
    <div className="actions">
      <button type="button" onClick={onShowDeliveries} aria-label={`Deliveries of ${endpoint.url}`}>
        Deliveries
      </button>
      {endpoint.status === 'disabled' && (
        <button type="button" onClick={() => enable.mutate()} disabled={enable.isPending} aria-label={`Enable ${endpoint.url}`}>
          Enable
        </button>
      )}
      <button type="button" onClick={() => setConfirming(true)} aria-label={`Remove ${endpoint.url}`}>
        Remove…
      </button>
      <ConfirmDialog
        open={confirming} busy={remove.isPending} onConfirm={() => remove.mutate()} onCancel={() => setConfirming(false)}
        title="Remove this webhook endpoint?" confirmLabel="Remove endpoint"
      >
        <p>
          Nothing more is sent to <code>{endpoint.url}</code>. Its delivery log is kept.
        </p>
        {remove.isError && <ErrorMessage error={remove.error} title="Not removed" />}
      </ConfirmDialog>
      {enable.isError && <ErrorMessage error={enable.error} title="Not enabled" />}
    </div>
  );
}

function RetryButton({ delivery }: { delivery: WebhookDelivery }) {
  const queryClient = useQueryClient();
  const retry = useMutation({
    mutationFn: () => api.retryDelivery(delivery.webhook_id, delivery.delivery_id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhookDeliveries(delivery.webhook_id) }),
  });
  return (
    <>
      <PendingButton onClick={() => retry.mutate()} pending={retry.isPending} pendingLabel="Retrying…" aria-label={`Retry delivery ${delivery.delivery_id}`}>
        Retry
      </PendingButton>
      {retry.isSuccess && <span role="status"> queued</span>}
      {retry.isError && <ErrorMessage error={retry.error} title="Not retried" />}
    </>
  );
}

function Deliveries({ endpoint }: { endpoint: WebhookEndpoint }) {
  return (
    <section className="panel" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries to {endpoint.url}</h2>
      <PagedTable<WebhookDelivery>
        queryKey={queryKeys.webhookDeliveries(endpoint.id)} fetchPage={(cursor) => api.webhookDeliveries(endpoint.id, cursor)} refetchIntervalMs={5_000} what="deliveries"
        caption={`Delivery log of ${endpoint.url}, newest first`} rowKey={(d) => d.delivery_id} empty="Nothing delivered to this endpoint yet."
        columns={[
          { header: 'Event', cell: (d) => <code title={d.event.id}>{d.event.type}</code> },
          timeColumn('Happened', (d) => d.event.timestamp),
          statusColumn((d) => d.status),
          { header: 'Attempts', numeric: true, cell: (d) => formatCount(d.attempts) },
          { header: 'Last HTTP status', numeric: true, cell: (d) => (d.last_status_code === null ? '—' : String(d.last_status_code)) },
          { header: 'Latency', numeric: true, cell: (d) => (d.last_latency_ms === null ? '—' : `${formatCount(d.last_latency_ms)} ms`) },
          timeColumn('Last attempt', (d) => d.last_attempt_at),
          timeColumn('Next attempt', (d) => d.next_attempt_at),
          { header: 'Error', cell: (d) => d.last_error ?? '' },
          { header: 'Retry', cell: (d) => <RetryButton delivery={d} /> },
        ]}
      />
    </section>
  );
}

export function WebhooksScreen() {
  // Refreshed like the delivery log: last success, failing since and a service-side disable change on their own.
  const endpoints = useQuery({ queryKey: queryKeys.webhooks, queryFn: api.webhooks, refetchInterval: 5_000 });
  const [shown, setShown] = useState<string | null>(null);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <QueryView query={endpoints} label="webhook endpoints">
        {(list) => {
          const selected = list.data.find((e) => e.id === shown) ?? null;
          return (
            <>
              <DataTable<WebhookEndpoint>
                caption="Webhook endpoints" rows={list.data} rowKey={(e) => e.id} empty="No endpoint registered."
                columns={[
                  { header: 'URL', cell: (e) => <code>{e.url}</code> },
                  { header: 'Events', cell: (e) => e.events.join(', ') },
                  statusColumn((e) => e.status),
                  ...(list.data.some((e) => e.disabled_reason) ? [{ header: 'Why disabled', cell: (e: WebhookEndpoint) => e.disabled_reason ?? '' }] : []),
                  timeColumn('Failing since', (e) => e.failing_since),
                  timeColumn('Last success', (e) => e.last_success_at),
                  ...(list.data.some((e) => e.contributor_id) ? [{ header: 'Contributor', cell: (e: WebhookEndpoint) => e.contributor_id ?? '' }] : []),
                  { header: 'Actions', cell: (e) => <EndpointActions endpoint={e} onShowDeliveries={() => setShown(e.id)} /> },
                ]}
              />
              {selected && <Deliveries endpoint={selected} />}
            </>
          );
        }}
      </QueryView>
      <Panel id="webhook-add-title" title="Add an endpoint">
        <WebhookCreateForm />
      </Panel>
    </section>
  );
}
