/** A dependency the service needs to be ready (Postgres, Redis, the chain RPC). */
export interface ReadinessCheck {
  name: string;
  /** Resolves when up, optionally with figures to show (a replica's lag). */
  check(): Promise<void | Record<string, number>>;
  /** false: shown, but its failure does not make the service unready (the read replica: reads
   * then fail with 503 while ingestion and payouts, which use the primary, keep working). */
  required?: boolean;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
export const READINESS_TIMEOUT_MS = 2_000;

export async function runCheck(check: ReadinessCheck): Promise<{ name: string; ok: boolean; required: boolean; error?: string; details?: Record<string, number> }> {
  let timer: NodeJS.Timeout | undefined;
  const required = check.required ?? true;
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
