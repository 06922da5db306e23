import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { onUnauthenticated } from '../api/client';
import { api } from '../api/endpoints';
import type { Whoami } from '../api/wire';
import { clearApiKey, readApiKey, storeApiKey } from './session';

export interface AuthState {
  /** Who the stored key is; null when signed out. */
  principal: Whoami | null;
  /** A stored key whose role is being looked up (page reload). */
  restoring: boolean;
  /** Why the last session ended (a revoked key), shown on the sign-in form. */
  notice: string | null;
  signIn: (key: string) => Promise<void>;
  signOut: (notice?: string) => void;
}

const AuthContext = createContext<AuthState | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [principal, setPrincipal] = useState<Whoami | null>(null);
  const [restoring, setRestoring] = useState(() => readApiKey() !== null);
  const [notice, setNotice] = useState<string | null>(null);

  const signOut = useCallback(
    (reason?: string) => {
      clearApiKey();
      queryClient.clear();
      setPrincipal(null);
      setNotice(reason ?? null);
    },
    [queryClient],
  );

  // The key is checked with GET /v1/me before it is kept: a bad key never reaches sessionStorage.
  const signIn = useCallback(
    async (key: string) => {
      const whoami = await api.whoami(key);
      storeApiKey(key);
      queryClient.clear();
      setNotice(null);
      setPrincipal(whoami);
    },
    [queryClient],
  );

  useEffect(() => {
    const stored = readApiKey();
    if (stored === null) return;
    api
      .whoami(stored)
      .then(setPrincipal)
      .catch((error: Error) => signOut(error.message))
      .finally(() => setRestoring(false));
  }, [signOut]);

  useEffect(() => onUnauthenticated(() => signOut('The API no longer accepts this key; sign in again.')), [signOut]);

  const value = useMemo(() => ({ principal, restoring, notice, signIn, signOut }), [principal, restoring, notice, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth outside AuthProvider');
  return state;
}

/** The signed-in principal (screens are only rendered signed in). */
export function usePrincipal(): Whoami {
  const { principal } = useAuth();
  if (!principal) throw new Error('not signed in');
  return principal;
}
