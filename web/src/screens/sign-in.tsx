import { useState, type FormEvent } from 'react';
import { useAuth } from '../auth/auth';
import { ErrorMessage } from '../components/states';

export function SignIn() {
  const { signIn, notice } = useAuth();
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(key.trim());
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <h1>Contributor ledger console</h1>
      <p className="muted">Sign in with an API key: an admin key opens the payout dashboard, a contributor key its own earnings.</p>
      <form onSubmit={submit} aria-label="Sign in">
        <label htmlFor="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} required />
        <p className="muted small">Kept in this tab only (sessionStorage) and sent as a Bearer token; no cookies.</p>
        <button type="submit" className="primary" disabled={busy || key.trim() === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      {notice && !error && <p role="status">{notice}</p>}
      {error !== null && <ErrorMessage error={error} title="Sign-in failed" />}
    </main>
  );
}
