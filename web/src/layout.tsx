import { Link, Navigate, Outlet } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { useAuth, usePrincipal } from './auth/auth';
import { Loading } from './components/states';
import { SignIn } from './screens/sign-in';

/** Admin screens, in menu order. A new admin screen (refunds, webhooks) is one route and one entry here. */
export const ADMIN_NAV = [
  { to: '/overview', label: 'Overview' },
  { to: '/usage', label: 'Usage' },
  { to: '/users', label: 'Users' },
  { to: '/contributors', label: 'Contributors' },
  { to: '/settlements', label: 'Settlements' },
  { to: '/unpriced', label: 'Unpriced events' },
  { to: '/prices', label: 'Prices' },
  { to: '/refunds', label: 'Refunds' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/usage-audit', label: 'Usage audit' },
  { to: '/audit-log', label: 'Audit log' },
  { to: '/ledger', label: 'Ledger check' },
  { to: '/api-keys', label: 'API keys' },
] as const;

export function RootLayout() {
  const { principal, restoring } = useAuth();
  if (restoring) return <Loading label="Checking your key" />;
  if (!principal) return <SignIn />;
  return <Shell />;
}

function Shell() {
  const principal = usePrincipal();
  const { signOut } = useAuth();
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Ledger console</span>
        <nav aria-label="Main">
          <ul>
            {principal.role === 'admin' &&
              ADMIN_NAV.map((item) => (
                <li key={item.to}>
                  <Link to={item.to} activeProps={{ className: 'active', 'aria-current': 'page' }}>
                    {item.label}
                  </Link>
                </li>
              ))}
            {principal.role === 'contributor' && (
              <li>
                <Link to="/portal" activeProps={{ className: 'active', 'aria-current': 'page' }}>
                  My earnings
                </Link>
              </li>
            )}
          </ul>
        </nav>
        <span className="whoami small">
          {principal.role}
          {principal.contributor_id ? ` · ${principal.contributor_id}` : ''}
        </span>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main className="content">
        <Outlet />
      </main>
    </div>
  );
}

/** Admin screens are not offered to other keys (the API refuses them anyway). */
export function AdminOnly({ children }: { children: ReactNode }) {
  const principal = usePrincipal();
  if (principal.role === 'contributor') return <Navigate to="/portal" replace />;
  if (principal.role !== 'admin') return <NoConsole />;
  return <>{children}</>;
}

export function ContributorOnly({ children }: { children: ReactNode }) {
  const principal = usePrincipal();
  if (principal.role === 'admin') return <Navigate to="/overview" replace />;
  if (principal.role !== 'contributor') return <NoConsole />;
  return <>{children}</>;
}

function NoConsole() {
  return (
    <section>
      <h1>No console for this key</h1>
      <p>Gateway keys report usage; the console is for admin and contributor keys. Sign out and use one of those.</p>
    </section>
  );
}

export function Home() {
  const principal = usePrincipal();
  if (principal.role === 'admin') return <Navigate to="/overview" replace />;
  if (principal.role === 'contributor') return <Navigate to="/portal" replace />;
  return <NoConsole />;
}

export function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        This page does not exist. <Link to="/">Back to the start</Link>.
      </p>
    </section>
  );
}
