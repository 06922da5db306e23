// What the Postgres and Redis client spans carry as their statement. The one-statement group
// commit is kilobytes of SQL; copied whole into `db.query.text` of every pg span it was encoded
// (protobuf, on the event loop) and shipped once per query. The span keeps the statement's start
// (its name and first CTE say which one it is; prepared statements also name the span) and its
// length. Redis spans keep the command name only: no key, no argument (no data leaves with them).

/** The pg instrumentation's query text attribute (semantic conventions 1.26+, what 0.76 writes). */
export const DB_QUERY_TEXT = 'db.query.text';
/** Characters of a statement kept on its span. */
export const DB_STATEMENT_MAX_CHARS = 256;

/** `text` up to `maxChars` characters; a longer one cut there, with its full length appended. */
export function truncatedStatement(text: string, maxChars: number = DB_STATEMENT_MAX_CHARS): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}... (${text.length} chars)`;
}

/** The part of a span the hooks touch (the SDK's Span; a plain recorder in the tests). */
interface AttributeSink {
  setAttribute(key: string, value: string): unknown;
}

/** The pg instrumentation's `requestHook`: the query text attribute replaced by its truncation. */
export function pgStatementHook(span: AttributeSink, info: { query: { text: string } }): void {
  const text = info.query.text;
  if (typeof text === 'string' && text.length > DB_STATEMENT_MAX_CHARS) span.setAttribute(DB_QUERY_TEXT, truncatedStatement(text));
}

/** The ioredis instrumentation's `dbStatementSerializer`: the command name alone. */
export function redisStatement(commandName: string): string {
  return commandName;
}
