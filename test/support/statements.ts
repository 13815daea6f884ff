import type { Database, Statement } from 'bun:sqlite';

/** A statement text's first words: `INSERT INTO units`. */
const headOf = (sql: string) => sql.replace(/\s+/g, ' ').split(' (')[0]!;

/**
 * Counts, by their first words, the statements the connection runs
 * (`runs`) and the ones it compiles (`compiled`: every `prepare`, and every
 * `query`, whose cache of 20 texts cannot be relied on to keep them).
 */
export function countStatements(client: Database) {
  const runs = new Map<string, number>();
  /** Each statement run, its text with the values bound (`Statement.toString`), in order. */
  const ran: string[] = [];
  const compiled = new Map<string, number>();
  const add = (counts: Map<string, number>, sql: string) =>
    counts.set(headOf(sql), (counts.get(headOf(sql)) ?? 0) + 1);
  const counted = new WeakSet<object>();
  const counting = <S extends Statement>(sql: string, statement: S): S => {
    if (counted.has(statement)) return statement;
    counted.add(statement);
    for (const method of ['run', 'all', 'get', 'values'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      Object.assign(statement, {
        [method]: (...args: unknown[]) => {
          add(runs, sql);
          const result = original(...args);
          ran.push(statement.toString());
          return result;
        },
      });
    }
    return statement;
  };
  const prepare = client.prepare.bind(client);
  const query = client.query.bind(client);
  client.prepare = ((sql: string) => {
    add(compiled, sql);
    return counting(sql, prepare(sql));
  }) as Database['prepare'];
  client.query = ((sql: string) => {
    add(compiled, sql);
    return counting(sql, query(sql));
  }) as Database['query'];
  return {
    runs,
    ran,
    compiled,
    restore: () => {
      Reflect.deleteProperty(client, 'prepare');
      Reflect.deleteProperty(client, 'query');
    },
  };
}
