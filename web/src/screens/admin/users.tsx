// Users with their balances (GET /v1/admin/users), and one user's screen: balance, held and
// available, a credit form, a link to their usage, and the slot for spend controls.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { UserRow } from '../../api/wire';
import { moneyColumn, timeColumn } from '../../components/columns';
import { PagedTable } from '../../components/paged-table';
import { PendingButton } from '../../components/pending-button';
import { ErrorMessage, QueryView } from '../../components/states';
import { MoneyStats, StatGrid } from '../../components/stat';
import { UserSpendControls } from './user-spend-controls';

const BALANCE_FIGURES = [['Balance', 'balance_usd'], ['Held for calls in flight', 'held_usd'], ['Available', 'available_usd'], ['Of which credit grants', 'granted_usd']] as const;

export function UsersScreen() {
  const { q = '' }: { q?: string } = useSearch({ strict: false });
  const navigate = useNavigate();
  const [draft, setDraft] = useState(q);
  return (
    <section aria-labelledby="users-title">
      <h1 id="users-title">Users</h1>
      <form
        className="filters" role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void navigate({ to: '/users', search: draft.trim() ? { q: draft.trim() } : {} });
        }}
      >
        <label>
          Search user ids
          <input type="search" value={draft} onChange={(e) => setDraft(e.target.value)} />
        </label>
        <button type="submit">Search</button>
      </form>
      <PagedTable<UserRow>
        queryKey={queryKeys.users(q)} fetchPage={(cursor) => api.users(q, cursor)} what="users"
        caption="Users with their balances" rowKey={(u) => u.user_id} empty={q ? 'No user id contains this text.' : 'No user yet: a user appears with their first credit.'}
        columns={[
          { header: 'User', text: (u) => u.user_id, cell: (u) => <Link to="/users/$userId" params={{ userId: u.user_id }}>{u.user_id}</Link> },
          moneyColumn('Balance', (u) => u.balance_usd),
          moneyColumn('Held', (u) => u.held_usd),
          moneyColumn('Available', (u) => u.available_usd),
          moneyColumn('Grants', (u) => u.granted_usd),
          timeColumn('Since', (u) => u.created_at),
        ]}
      />
    </section>
  );
}

export function UserDetailScreen() {
  const { userId } = useParams({ strict: false }) as { userId: string };
  const balance = useQuery({ queryKey: ['user-balance', userId], queryFn: () => api.userBalance(userId) });
  return (
    <section aria-labelledby="user-title">
      <h1 id="user-title">User {userId}</h1>
      <p>
        <Link to="/usage" search={{ user_id: userId }}>Usage of this user</Link> · <Link to="/users">All users</Link>
      </p>
      <QueryView query={balance} label="the balance">
        {(b) => (
          <StatGrid label="Balance">
            <MoneyStats of={b} figures={BALANCE_FIGURES} />
          </StatGrid>
        )}
      </QueryView>
      <CreditForm userId={userId} />
      <UserSpendControls userId={userId} />
    </section>
  );
}

/** POST /v1/admin/users/:id/credits; the reference is made when the form opens, so a resend is the same credit. */
function CreditForm({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [reference, setReference] = useState(() => `console-${crypto.randomUUID()}`);
  const credit = useMutation({
    mutationFn: () => api.credit(userId, { amount_usd: amount.trim(), reference, ...(reason.trim() ? { reason: reason.trim() } : {}) }),
    onSuccess: async () => {
      setReference(`console-${crypto.randomUUID()}`);
      setAmount('');
      setReason('');
      await queryClient.invalidateQueries({ queryKey: ['user-balance', userId] });
      await queryClient.invalidateQueries({ queryKey: ['users'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    credit.mutate();
  };
  return (
    <section aria-labelledby="credit-title" className="panel">
      <h2 id="credit-title">Add credit</h2>
      <form className="filters" onSubmit={submit}>
        <label>
          Amount (USD; negative: an adjustment)
          <input type="text" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} required />
        </label>
        <label>
          Reason (required for a negative amount)
          <input type="text" value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
        <PendingButton type="submit" pending={credit.isPending} pendingLabel="Crediting…">Credit</PendingButton>
      </form>
      {credit.isSuccess && <p role="status">Credited: the balance is now {credit.data.balance_usd} USD.</p>}
      {credit.isError && <ErrorMessage error={credit.error} title="The credit was refused" />}
    </section>
  );
}
