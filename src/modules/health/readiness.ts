/** A dependency the service needs to be ready (Postgres, Redis, the chain RPC). */
export interface ReadinessCheck {
  name: string;
  /** Resolves when up, optionally with figures to show (a replica's lag). */
  check(): Promise<void | Record<string, number>>;
  /** true: not configured here (the chain without RPC_URL): shown as `disabled`, never probed. */
  disabled?: () => boolean;
  /** false: shown, but its failure does not make the service unready (the read replica: reads
   * then fail with 503 while ingestion and payouts, which use the primary, keep working). */
  required?: boolean;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
export const READINESS_TIMEOUT_MS = 2_000;

export interface CheckResult {
  name: string;
  ok: boolean;
  required: boolean;
  disabled?: true;
  error?: string;
  details?: Record<string, number>;
}

export async function runCheck(check: ReadinessCheck): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const required = check.required ?? true;
  if (check.disabled?.()) return { name: check.name, ok: true, required, disabled: true };
  try {
    const details = await Promise.race([
      check.check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
      }),
    ]);
    return { name: check.name, ok: true, required, ...(details ? { details: details as Record<string, number> } : {}) };
  } catch (error) {
    return { name: check.name, ok: false, required, error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** The api.md body of one check: `up` (with figures), `down` (with the error) or `disabled`. */
export function checkBody(result: CheckResult): Record<string, unknown> {
  if (result.disabled) return { status: 'disabled' };
  return result.ok ? { status: 'up', ...result.details } : { status: 'down', error: result.error };
}
