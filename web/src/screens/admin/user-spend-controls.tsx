// A user's spend controls (docs/spend-controls.md): credit grants with their expiry, budgets with a
// spent/held/limit bar, balance thresholds, auto top-up state, and the forms that set them. Self-contained (its own API calls and
// query keys): the Users screen mounts <UserSpendControls userId=... />; /users/$userId/spend
// shows it on its own.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { ApiError, apiJson } from '../../api/client';
import { api } from '../../api/endpoints';
import type { UserGrant } from '../../api/wire';
import { moneyColumn } from '../../components/columns';
import { DataTable } from '../../components/data-table';
import { compareDecimal, isDecimalString } from '../../money/decimal';
import { Money } from '../../components/money';
import { Panel } from '../../components/panel';
import { FormFooter, QueryView } from '../../components/states';

export interface UserBudget {
  budget_id: string;
  limit_usd: string;
  period: 'day' | 'week' | 'month' | 'total';
  period_start: string | null;
  period_end: string | null;
  key_id: string | null;
  model: string | null;
  action: 'block' | 'notify';
  alert_at: string[];
  spent_usd: string;
  held_usd: string;
  remaining_usd: string;
}

export interface AutoTopup {
  below_usd: string;
  amount_usd: string;
  max_per_month_usd: string;
  enabled: boolean;
  armed: boolean;
  failures_in_row: number;
  disabled_reason: string | null;
  requested_this_month_usd: string;
}

const path = (userId: string, rest: string) => `/v1/${rest.startsWith('admin') ? 'admin/' : ''}users/${encodeURIComponent(userId)}/${rest.replace(/^admin\//, '')}`;
const keys = {
  budgets: (userId: string) => ['spend', userId, 'budgets'] as const,
  alerts: (userId: string) => ['spend', userId, 'alerts'] as const,
  autoTopup: (userId: string) => ['spend', userId, 'auto-topup'] as const,
};

/** The days a grant may last (the API's GRANT_HORIZON_MAX_DAYS). */
export const GRANT_HORIZON_MAX_DAYS = 730;

/**
 * What is wrong with a grant form before it is sent (null: nothing). Amounts are compared exactly
 * (bigint decimals), never as floats; the instant must carry its UTC offset ("Z" or "+hh:mm").
 */
export function grantProblem(draft: { amount_usd: string; expires_at: string }, nowMs: number): string | null {
  const amount = draft.amount_usd.trim();
  if (!isDecimalString(amount) || compareDecimal(amount, '0') <= 0) return 'The amount is a positive decimal in USD.';
  const text = draft.expires_at.trim();
  const at = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) || Number.isNaN(at)) return 'The expiry is an ISO instant with its offset, e.g. 2026-12-31T00:00:00Z.';
  if (at <= nowMs) return 'The expiry must be in the future.';
  if (at > nowMs + GRANT_HORIZON_MAX_DAYS * 86_400_000) return `The expiry must be within ${GRANT_HORIZON_MAX_DAYS} days.`;
  return null;
}

/** Percent of the limit, capped to the bar (display only: the figures stay exact strings). */
export function barPercents(b: Pick<UserBudget, 'spent_usd' | 'held_usd' | 'limit_usd'>): { spent: number; held: number } {
  const limit = Number(b.limit_usd);
  if (!(limit > 0)) return { spent: Number(b.spent_usd) > 0 ? 100 : 0, held: 0 };
  const spent = Math.min(100, (Number(b.spent_usd) / limit) * 100);
  return { spent, held: Math.min(100 - spent, (Number(b.held_usd) / limit) * 100) };
}

function BudgetBar({ budget }: { budget: UserBudget }) {
  const { spent, held } = barPercents(budget);
  return (
    <div role="img" aria-label={`${budget.spent_usd} spent and ${budget.held_usd} held of ${budget.limit_usd} USD`} style={{ display: 'flex', width: '10rem', height: '0.75rem', background: 'var(--border, #ddd)', borderRadius: 4, overflow: 'hidden' }}>
      <span style={{ width: `${spent}%`, background: spent >= 100 ? '#c62828' : '#1565c0' }} />
      <span style={{ width: `${held}%`, background: '#90caf9' }} />
    </div>
  );
}

export function UserSpendControls({ userId }: { userId: string }) {
  const budgets = useQuery({ queryKey: keys.budgets(userId), queryFn: () => apiJson<{ data: UserBudget[] }>(path(userId, 'budgets')) });
  const autoTopup = useQuery({
    queryKey: keys.autoTopup(userId),
    // No auto top-up set yet is a 404: shown as "off", not as an error.
    queryFn: () => apiJson<AutoTopup>(path(userId, 'auto-topup')).catch((e: unknown) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e))),
  });
  const alerts = useQuery({ queryKey: keys.alerts(userId), queryFn: () => apiJson<{ balance_below_usd: string[] }>(path(userId, 'alerts')) });
  return (
    <section aria-labelledby="spend-controls-title">
      <h2 id="spend-controls-title">Spend controls of {userId}</h2>
      <UserGrants userId={userId} />
      <QueryView query={budgets} label="budgets">
        {(b) => (
          <DataTable<UserBudget>
            caption="Budgets" rows={b.data} rowKey={(x) => x.budget_id} empty="No budgets."
            columns={[
              { header: 'Budget', cell: (x) => <code>{x.budget_id}</code> },
              { header: 'Scope', cell: (x) => [x.key_id && `key ${x.key_id}`, x.model && `model ${x.model}`].filter(Boolean).join(', ') || 'all' },
              { header: 'Period', cell: (x) => (x.period_start ? `${x.period} from ${x.period_start.slice(0, 10)}` : x.period) },
              { header: 'Action', cell: (x) => x.action },
              { header: 'Spent / held / limit', cell: (x) => <BudgetBar budget={x} /> },
              { header: 'Spent', numeric: true, cell: (x) => <Money value={x.spent_usd} /> },
              { header: 'Held', numeric: true, cell: (x) => <Money value={x.held_usd} /> },
              { header: 'Remaining', numeric: true, cell: (x) => <Money value={x.remaining_usd} /> },
            ]}
          />
        )}
      </QueryView>
      <BudgetForm userId={userId} />
      <Panel id="auto-topup-title" title="Auto top-up">
        <QueryView query={autoTopup} label="auto top-up">
          {(a) =>
            a ? (
              <p>
                {a.enabled ? 'On' : `Off${a.disabled_reason ? ` (${a.disabled_reason})` : ''}`}: below <Money value={a.below_usd} />, request <Money value={a.amount_usd} />, at most{' '}
                <Money value={a.max_per_month_usd} /> a month (<Money value={a.requested_this_month_usd} /> requested this month); {a.armed ? 'armed' : 'waiting for the balance to climb back'};{' '}
                {a.failures_in_row} failed charges in a row.
              </p>
            ) : (
              <p className="muted">Off (never set).</p>
            )
          }
        </QueryView>
        <AutoTopupForm userId={userId} />
      </Panel>
      <Panel id="balance-alerts-title" title="Balance alerts">
        <QueryView query={alerts} label="balance alerts">
          {(a) => <p>{a.balance_below_usd.length ? `Below ${a.balance_below_usd.join(', ')} USD` : 'None.'}</p>}
        </QueryView>
        <AlertsForm userId={userId} current={alerts.data?.balance_below_usd ?? []} />
      </Panel>
    </section>
  );
}

/** The user's credit grants (from the balance, the query the user screen shares) and the form to grant one. */
function UserGrants({ userId }: { userId: string }) {
  const balance = useQuery({ queryKey: ['user-balance', userId], queryFn: () => api.userBalance(userId) });
  return (
    <Panel id="grants-title" title="Credit grants">
      <QueryView query={balance} label="credit grants">
        {(b) => (
          <DataTable<UserGrant>
            caption="Credit grants, the one expiring first first" rows={b.grants} rowKey={(g) => g.grant_id} empty="No credit grants."
            columns={[
              { header: 'Grant', cell: (g) => <code>{g.grant_id}</code> },
              { header: 'Name', cell: (g) => g.name ?? '—' },
              moneyColumn('Amount', (g) => g.amount_usd),
              moneyColumn('Remaining', (g) => g.remaining_usd),
              // The exact instant, UTC, as the API gives it.
              { header: 'Expires (UTC)', cell: (g) => <time dateTime={g.expires_at}>{g.expires_at}</time> },
            ]}
          />
        )}
      </QueryView>
      <GrantForm userId={userId} />
    </Panel>
  );
}

/** POST credits with a grant; the reference is made when the form opens (a resend is the same grant). */
function GrantForm({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState({ amount_usd: '', expires_at: '', name: '' });
  const [reference, setReference] = useState(() => `console-grant-${crypto.randomUUID()}`);
  const grant = useMutation({
    mutationFn: () =>
      api.credit(userId, { amount_usd: draft.amount_usd.trim(), reference, grant: { expires_at: draft.expires_at.trim(), ...(draft.name.trim() ? { name: draft.name.trim() } : {}) } }),
    onSuccess: async () => {
      setReference(`console-grant-${crypto.randomUUID()}`);
      setDraft({ amount_usd: '', expires_at: '', name: '' });
      await queryClient.invalidateQueries({ queryKey: ['user-balance', userId] });
      await queryClient.invalidateQueries({ queryKey: ['users'] });
    },
  });
  const problem = grantProblem(draft, Date.now());
  const field = (name: keyof typeof draft, label: string, placeholder?: string) => (
    <label>
      {label} <input value={draft[name]} placeholder={placeholder} onChange={(e) => setDraft({ ...draft, [name]: e.target.value })} />
    </label>
  );
  return (
    <form onSubmit={(e) => { e.preventDefault(); if (!problem) grant.mutate(); }} aria-label="Grant credit">
      {field('amount_usd', 'Grant amount (USD)')}
      {field('expires_at', 'Expires at (ISO, UTC)', '2026-12-31T00:00:00Z')}
      {field('name', 'Name (optional)')}
      <FormFooter pending={grant.isPending} label="Grant" pendingLabel="Granting…" problem={draft.amount_usd || draft.expires_at ? problem : null} error={grant.error} errorTitle="The grant was refused" />
    </form>
  );
}

function useSpendMutation<B>(userId: string, send: (body: B) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: send, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['spend', userId] }) });
}

function BudgetForm({ userId }: { userId: string }) {
  const [draft, setDraft] = useState({ budget_id: '', limit_usd: '', period: 'day', action: 'block', key_id: '', model: '', alert_at: '0.8, 1' });
  const put = useSpendMutation(userId, (body: Record<string, unknown>) => apiJson(path(userId, `admin/budgets/${encodeURIComponent(draft.budget_id)}`), { method: 'PUT', json: body }));
  const problem = draft.budget_id.trim() === '' ? 'Name the budget.' : !/^\d+(\.\d+)?$/.test(draft.limit_usd) ? 'The limit is a decimal amount in USD.' : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (problem) return;
    const alertAt = draft.alert_at.split(',').map((t) => t.trim()).filter(Boolean);
    put.mutate({ limit_usd: draft.limit_usd, period: draft.period, action: draft.action, ...(draft.key_id ? { key_id: draft.key_id } : {}), ...(draft.model ? { model: draft.model } : {}), alert_at: alertAt });
  };
  const field = (name: keyof typeof draft, label: string) => (
    <label>
      {label} <input value={draft[name]} onChange={(e) => setDraft({ ...draft, [name]: e.target.value })} />
    </label>
  );
  return (
    <form onSubmit={submit} aria-label="Set a budget">
      {field('budget_id', 'Budget id')}
      {field('limit_usd', 'Limit (USD)')}
      <label>
        Period{' '}
        <select value={draft.period} onChange={(e) => setDraft({ ...draft, period: e.target.value })}>
          {['day', 'week', 'month', 'total'].map((p) => <option key={p}>{p}</option>)}
        </select>
      </label>
      <label>
        Action{' '}
        <select value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })}>
          <option>block</option>
          <option>notify</option>
        </select>
      </label>
      {field('key_id', 'Key id (optional)')}
      {field('model', 'Model (optional)')}
      {field('alert_at', 'Alert at (fractions)')}
      <FormFooter pending={put.isPending} label="Save budget" pendingLabel="Saving…" problem={draft.budget_id || draft.limit_usd ? problem : null} error={put.error} errorTitle="The budget was not saved" />
    </form>
  );
}

function AutoTopupForm({ userId }: { userId: string }) {
  const [draft, setDraft] = useState({ below_usd: '', amount_usd: '', max_per_month_usd: '' });
  const put = useSpendMutation(userId, (body: typeof draft) => apiJson(path(userId, 'admin/auto-topup'), { method: 'PUT', json: body }));
  const problem = Object.values(draft).every((v) => /^\d+(\.\d+)?$/.test(v)) ? null : 'Each amount is a decimal in USD.';
  return (
    <form onSubmit={(e) => { e.preventDefault(); if (!problem) put.mutate(draft); }} aria-label="Set auto top-up">
      {(['below_usd', 'amount_usd', 'max_per_month_usd'] as const).map((name) => (
        <label key={name}>
          {name.replace(/_usd$/, '').replaceAll('_', ' ')} (USD) <input value={draft[name]} onChange={(e) => setDraft({ ...draft, [name]: e.target.value })} />
        </label>
      ))}
      <FormFooter pending={put.isPending} label="Save auto top-up" pendingLabel="Saving…" problem={draft.below_usd ? problem : null} error={put.error} errorTitle="Auto top-up was not saved" />
    </form>
  );
}

function AlertsForm({ userId, current }: { userId: string; current: string[] }) {
  const [text, setText] = useState(current.join(', '));
  const put = useSpendMutation(userId, (list: string[]) => apiJson(path(userId, 'admin/alerts'), { method: 'PUT', json: { balance_below_usd: list } }));
  const list = text.split(',').map((t) => t.trim()).filter(Boolean);
  const problem = list.every((t) => /^\d+(\.\d+)?$/.test(t)) ? null : 'Thresholds are decimal amounts in USD, separated by commas.';
  return (
    <form onSubmit={(e) => { e.preventDefault(); if (!problem) put.mutate(list); }} aria-label="Set balance alerts">
      <label>
        Alert below (USD) <input value={text} onChange={(e) => setText(e.target.value)} placeholder="10, 1" />
      </label>
      <FormFooter pending={put.isPending} label="Save alerts" pendingLabel="Saving…" problem={problem} error={put.error} errorTitle="The alerts were not saved" />
    </form>
  );
}

/** The route's screen: /console/users/$userId/spend. */
export function UserSpendControlsScreen() {
  const { userId } = useParams({ strict: false }) as { userId: string };
  return <UserSpendControls userId={userId} />;
}
