import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import { api } from '../../api/endpoints';
import { ErrorMessage } from '../../components/states';
import { PendingButton } from '../../components/pending-button';

interface ContributorFields {
  id: string;
  tier: string;
  status: string;
  payout_address: string;
}

/** PUT /v1/admin/contributors/:id with the current fields and the changes; refreshes every view of it. */
function usePutContributor(contributor: ContributorFields) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: Partial<Pick<ContributorFields, 'tier' | 'status' | 'payout_address'>> & { allow_contract?: boolean }) =>
      api.putContributor(contributor.id, {
        tier: changes.tier ?? contributor.tier,
        payout_address: changes.payout_address ?? contributor.payout_address,
        status: changes.status ?? contributor.status,
        ...(changes.allow_contract ? { allow_contract: true } : {}),
      }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['contributors'] });
      await queryClient.invalidateQueries({ queryKey: ['contributor', contributor.id] });
    },
  });
}

/** Suspend or activate: a suspended contributor is left out of settlements. */
export function StatusToggle({ contributor }: { contributor: ContributorFields }) {
  const put = usePutContributor(contributor);
  const next = contributor.status === 'suspended' ? 'active' : 'suspended';
  return (
    <span className="inline-action">
      <button type="button" onClick={() => put.mutate({ status: next })} disabled={put.isPending} aria-label={`${next === 'active' ? 'Activate' : 'Suspend'} ${contributor.id}`}>
        {next === 'active' ? 'Activate' : 'Suspend'}
      </button>
      {put.isError && <ErrorMessage error={put.error} />}
    </span>
  );
}

/**
 * Tier and payout address. The API checks the address (and, with payout safety, refuses some
 * with 422 payout_address_refused and a reason): its message is shown as is.
 */
export function ContributorEditForm({ contributor }: { contributor: ContributorFields }) {
  const put = usePutContributor(contributor);
  const [tier, setTier] = useState(contributor.tier);
  const [address, setAddress] = useState(contributor.payout_address);
  const [allowContract, setAllowContract] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    put.mutate({ tier, payout_address: address.trim(), allow_contract: allowContract });
  };
  const refusal = put.error instanceof ApiError && (put.error.code === 'payout_address_refused' || put.error.code === 'payout_address_denylisted') ? put.error : null;
  return (
    <form onSubmit={submit} aria-label={`Edit ${contributor.id}`} className="form-grid">
      <label htmlFor="tier">Tier</label>
      <select id="tier" value={tier} onChange={(e) => setTier(e.target.value)}>
        <option value="standard">standard</option>
        <option value="premium">premium</option>
      </select>
      <label htmlFor="payout-address">Payout address</label>
      <input id="payout-address" value={address} onChange={(e) => setAddress(e.target.value)} spellCheck={false} required />
      <label htmlFor="allow-contract">Address is a contract (smart wallet)</label>
      <span>
        <input id="allow-contract" type="checkbox" checked={allowContract} onChange={(e) => setAllowContract(e.target.checked)} /> allow contract code at this address
      </span>
      <div className="actions">
        <PendingButton type="submit" className="primary" pending={put.isPending} pendingLabel="Saving…">
          Save
        </PendingButton>
        {put.isSuccess && <span role="status">Saved.</span>}
      </div>
      {put.isError && <ErrorMessage error={put.error} title={refusal ? 'Payout address refused' : 'Not saved'} />}
    </form>
  );
}

/** Issues a contributor key for the portal; the key is shown once, as the API returns it once. */
export function PortalKeyButton({ contributorId }: { contributorId: string }) {
  const create = useMutation({ mutationFn: () => api.createContributorKey(contributorId, `console portal key for ${contributorId}`) });
  return (
    <div>
      <button type="button" onClick={() => create.mutate()} disabled={create.isPending}>
        Create a portal key
      </button>
      {create.isSuccess && (
        <p role="status">
          Key for {contributorId} (shown once): <code data-created-key>{create.data.key}</code>
        </p>
      )}
      {create.isError && <ErrorMessage error={create.error} />}
    </div>
  );
}
