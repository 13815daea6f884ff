/** The PostgreSQL column types the schema uses, as information_schema names them. */
export type PgColumnType =
  | 'bigint'
  | 'integer'
  | 'text'
  | 'boolean'
  | 'json'
  | 'double precision'
  | 'bytea';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A text field of COPY's text format: backslash, newline, carriage return and tab escaped. */
const escapeText = (text: string) => text.replace(/[\\\n\r\t]/g, (char) => ESCAPES[char]!);

/**
 * One SQLite value as a field of COPY's text format, for a column of `type`:
 * null is `\N`, SQLite's 0/1 booleans become f/t, a blob becomes bytea's hex
 * form (its backslash escaped, as every backslash of the text format is).
 */
export function copyField(value: unknown, type: PgColumnType): string {
  if (value === null || value === undefined) return '\\N';
  if (type === 'boolean') return value ? 't' : 'f';
  if (type === 'bytea') {
    const bytes = value instanceof Uint8Array ? value : Buffer.from(String(value));
    return `\\\\x${Buffer.from(bytes).toString('hex')}`;
  }
  return escapeText(String(value));
}

/** One row of COPY's text format, newline included. */
export const copyLine = (values: readonly unknown[], types: readonly PgColumnType[]): string =>
  `${values.map((value, index) => copyField(value, types[index]!)).join('\t')}\n`;
