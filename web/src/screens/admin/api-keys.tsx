// API keys: create one (the key is shown once), list them (never a key or secret), revoke.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { ApiKeyRow, CreatedKey } from '../../api/wire';
import { statusColumn, textColumn, timeColumn } from '../../components/columns';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { PagedTable } from '../../components/paged-table';
import { PendingButton } from '../../components/pending-button';
import { ErrorMessage } from '../../components/states';

const ROLES = ['gateway', 'admin', 'contributor'] as const;

export function ApiKeysScreen() {
  const [role, setRole] = useState('');
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <CreateKeyForm />
      <label>
        Role{' '}
        <select value={role} onChange={(e) => setRole(e.target.value)}>
          <option value="">any</option>
          {ROLES.map((r) => (
            <option key={r} value={r}>{r}</option>
          ))}
        </select>
      </label>
      <PagedTable<ApiKeyRow>
        queryKey={queryKeys.apiKeys(role)} fetchPage={(cursor) => api.apiKeys(role, cursor)} what="API keys"
        caption="API keys, newest first" rowKey={(k) => k.id} empty="No API key yet (the ADMIN_API_KEY of the environment is not listed)."
        columns={[
          textColumn('Name', (k) => k.name),
          textColumn('Role', (k) => k.role),
          textColumn('Contributor', (k) => k.contributor_id),
          textColumn('Key starts with', (k) => k.key_prefix),
          statusColumn((k) => (k.revoked_at ? 'revoked' : 'active')),
          timeColumn('Created', (k) => k.created_at),
          timeColumn('Last used', (k) => k.last_used_at),
          timeColumn('Revoked', (k) => k.revoked_at),
          { header: 'Actions', cell: (k) => (k.revoked_at ? '' : <RevokeButton keyRow={k} />) },
        ]}
      />
    </section>
  );
}

function CreateKeyForm() {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<(typeof ROLES)[number]>('gateway');
  const [name, setName] = useState('');
  const [contributorId, setContributorId] = useState('');
  const create = useMutation({
    mutationFn: () => api.createKey({ role, ...(name.trim() ? { name: name.trim() } : {}), ...(role === 'contributor' ? { contributor_id: contributorId.trim() } : {}) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section aria-labelledby="create-key-title" className="panel">
      <h2 id="create-key-title">Create a key</h2>
      <form className="filters" onSubmit={submit}>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as (typeof ROLES)[number])}>
            {ROLES.map((r) => (
              <option key={r} value={r}>{r}</option>
            ))}
          </select>
        </label>
        {role === 'contributor' && (
          <label>
            Contributor id
            <input type="text" value={contributorId} onChange={(e) => setContributorId(e.target.value)} required />
          </label>
        )}
        <label>
          Name
          <input type="text" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <PendingButton type="submit" pending={create.isPending} pendingLabel="Creating…">Create key</PendingButton>
      </form>
      {create.isSuccess && <CreatedKeyNotice created={create.data} />}
      {create.isError && <ErrorMessage error={create.error} title="The key was not created" />}
    </section>
  );
}

function CreatedKeyNotice({ created }: { created: CreatedKey }) {
  return (
    <div role="status" className="notice">
      <p>Key created. Copy it now: it is shown only this once.</p>
      <p>
        <code data-testid="created-key">{created.key}</code>
      </p>
    </div>
  );
}

function RevokeButton({ keyRow }: { keyRow: ApiKeyRow }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const revoke = useMutation({
    mutationFn: () => api.revokeKey(keyRow.id),
    onSuccess: async () => {
      setOpen(false);
      await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const label = keyRow.name ?? keyRow.key_prefix;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)} aria-label={`Revoke ${label}`}>Revoke</button>
      <ConfirmDialog open={open} title={`Revoke ${label}?`} confirmLabel="Revoke" busy={revoke.isPending} onConfirm={() => revoke.mutate()} onCancel={() => setOpen(false)}>
        <p>The key stops working at once. This cannot be undone.</p>
        {revoke.isError && <ErrorMessage error={revoke.error} />}
      </ConfirmDialog>
    </>
  );
}
