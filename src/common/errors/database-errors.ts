// Classifies driver errors: a lost or refused connection is "unavailable" (503, retry), not a bug.
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);
// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection exceptions, 53300 too_many_connections
const UNAVAILABLE_SQLSTATE = /^(57P0[123]|08\d{3}|53300)$/;
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|Cannot use a pool after calling end/i;
// Prisma (through @prisma/adapter-pg): P1001 can't reach, P1002/P1008 timed out, P1017 server closed
// the connection, P2024 no pool connection in time. The driver error sits in meta.driverAdapterError,
// its cause a `kind` (DatabaseNotReachable, ...) or `postgres` with the SQLSTATE in `code`.
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const UNAVAILABLE_ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

export function isDatabaseUnavailable(error: unknown): boolean {
  const pending: unknown[] = [error];
  for (let seen = 0; seen < 10 && pending.length > 0; seen += 1) {
    const candidate = pending.shift() as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } } | null;
    if (!candidate || typeof candidate !== 'object') continue;
    if (typeof candidate.code === 'string' && (UNAVAILABLE_NODE_CODES.has(candidate.code) || UNAVAILABLE_SQLSTATE.test(candidate.code) || UNAVAILABLE_PRISMA_CODES.has(candidate.code))) {
      return true;
    }
    if (typeof candidate.kind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(candidate.kind)) return true;
    if (typeof candidate.message === 'string' && UNAVAILABLE_MESSAGES.test(candidate.message)) return true;
    pending.push(candidate.cause, candidate.meta?.driverAdapterError);
  }
  return false;
}

/** 40001 serialization_failure, 40P01 deadlock_detected: safe to retry the whole transaction. */
export function isRetryableTransactionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '40001' || code === '40P01';
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: unknown; constraint?: unknown };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * 22003 numeric_value_out_of_range: a stored amount would pass NUMERIC(38,0) (about 1e20 USD in
 * atto-USD), e.g. absurd credits summed into one account. The input's fault, not a bug.
 */
export function isNumericOutOfRange(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth += 1) {
    if ((current as { code?: unknown }).code === '22003') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
