/** SQLSTATEs of a failure that a new connection or transaction may not meet. */
const TRANSIENT_STATES = new Set(['40001', '40P01', '53300', '57P01', '57P02', '57P03']);

/** Whether `error` is a lost connection, a shut-down server or a transaction given up in a conflict. */
export function transient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    return (
      code.startsWith('08') ||
      TRANSIENT_STATES.has(code) ||
      /^E(CONNRESET|CONNREFUSED|PIPE|TIMEDOUT)$/.test(code)
    );
  }
  return (
    error instanceof Error &&
    /Connection terminated|not queryable|timeout exceeded when trying to connect/i.test(error.message)
  );
}
