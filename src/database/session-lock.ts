// A session-level Postgres advisory lock on a connection checked out for as long as it is held:
// one holder across every process, released by Postgres when the holder's session ends (the
// process died, the connection broke).
import type pg from 'pg';

export interface SessionLock {
  /** True once the holding connection reported an error: the session, and so the lock, may be gone. */
  readonly lost: boolean;
  /** Re-takes the lock on the same session (re-entrant): true while this session still holds it. */
  stillHeld(): Promise<boolean>;
  /** Drops every hold of the session (a failure ends the session, which frees it too). */
  release(): Promise<void>;
}

const TRY_LOCK_SQL = 'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok';

/** The lock named `key`, or null when another session holds it. */
export async function trySessionLock(pool: pg.Pool, key: string, onLost: (error: Error) => void = () => undefined): Promise<SessionLock | null> {
  const client = await pool.connect();
  let lost = false;
  const onError = (error: Error) => {
    lost = true;
    onLost(error);
  };
  client.on('error', onError);
  const done = (destroy: boolean) => {
    client.off('error', onError);
    client.release(destroy);
  };
  try {
    const result = await client.query<{ ok: boolean }>(TRY_LOCK_SQL, [key]);
    if (!result.rows[0]?.ok) {
      done(false);
      return null;
    }
  } catch (error) {
    done(true);
    throw error;
  }
  return {
    get lost() {
      return lost;
    },
    stillHeld: async () => (await client.query<{ ok: boolean }>(TRY_LOCK_SQL, [key])).rows[0]?.ok === true,
    release: async () => {
      try {
        await client.query('SELECT pg_advisory_unlock_all()');
        done(lost);
      } catch {
        done(true);
      }
    },
  };
}
