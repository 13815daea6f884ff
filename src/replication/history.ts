/**
 * The replica's generations and snapshots as Litestream 0.3.13 prints them
 * (`litestream generations` and `litestream snapshots`): a header, then one
 * row per replica and generation (or snapshot), columns padded with spaces.
 * No value holds a space (names, hex ids, Go durations, RFC 3339 instants).
 * Its log lines (`time=… level=…`) go to stdout too, between the table's.
 */

const LOG_LINE = /^time=\S+ level=/;

/** One generation: a line of snapshots and WAL from one start of replication. */
export interface ReplicaGeneration {
  id: string;
  /** The earliest instant it can restore (RFC 3339, whole seconds). */
  start: string;
  /** The latest. */
  end: string;
  snapshots: ReplicaSnapshot[];
}

export interface ReplicaSnapshot {
  /** The WAL index it was taken at. */
  index: number;
  /** Bytes, compressed. */
  size: number;
  createdAt: string;
}

const GENERATIONS_HEADER = ['name', 'generation', 'lag', 'start', 'end'];
const SNAPSHOTS_HEADER = ['replica', 'generation', 'index', 'size', 'created'];
const GENERATION_ID = /^[0-9a-f]{16}$/;

/** An RFC 3339 instant as Litestream prints it, or undefined. */
function instant(text: string | undefined): string | undefined {
  if (!text || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(text)) return undefined;
  return Number.isNaN(Date.parse(text)) ? undefined : text;
}

/** The rows under `header`, split into columns; undefined when the header is not that one. */
function rowsOf(text: string, header: string[]): string[][] | undefined {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !LOG_LINE.test(line));
  const [first, ...rest] = lines;
  if (first?.split(/\s+/).join(' ') !== header.join(' ')) return undefined;
  return rest.map((line) => line.split(/\s+/));
}

/** `litestream generations` output: id, start and end of each generation; undefined when unreadable. */
export function parseGenerations(text: string): Omit<ReplicaGeneration, 'snapshots'>[] | undefined {
  const rows = rowsOf(text, GENERATIONS_HEADER);
  if (!rows) return undefined;
  const generations: Omit<ReplicaGeneration, 'snapshots'>[] = [];
  for (const row of rows) {
    const [, id, , startText, endText] = row;
    const start = instant(startText);
    const end = instant(endText);
    if (row.length !== 5 || !id || !GENERATION_ID.test(id) || !start || !end) return undefined;
    generations.push({ id, start, end });
  }
  return generations;
}

/** `litestream snapshots` output: each snapshot with its generation; undefined when unreadable. */
export function parseSnapshots(
  text: string,
): (ReplicaSnapshot & { generation: string })[] | undefined {
  const rows = rowsOf(text, SNAPSHOTS_HEADER);
  if (!rows) return undefined;
  const snapshots: (ReplicaSnapshot & { generation: string })[] = [];
  for (const row of rows) {
    const [, generation, indexText, sizeText, createdText] = row;
    const createdAt = instant(createdText);
    const index = Number(indexText);
    const size = Number(sizeText);
    if (
      row.length !== 5 ||
      !generation ||
      !GENERATION_ID.test(generation) ||
      !createdAt ||
      !Number.isSafeInteger(index) ||
      !Number.isSafeInteger(size)
    ) {
      return undefined;
    }
    snapshots.push({ generation, index, size, createdAt });
  }
  return snapshots;
}

/**
 * The generations, newest first (by their last instant), each with its
 * snapshots, newest first; undefined when either output is unreadable.
 */
export function parseHistory(
  generationsText: string,
  snapshotsText: string,
): ReplicaGeneration[] | undefined {
  const generations = parseGenerations(generationsText);
  const snapshots = parseSnapshots(snapshotsText);
  if (!generations || !snapshots) return undefined;
  const byEnd = (a: { end: string }, b: { end: string }) => Date.parse(b.end) - Date.parse(a.end);
  return generations.sort(byEnd).map((generation) => ({
    ...generation,
    snapshots: snapshots
      .filter((snapshot) => snapshot.generation === generation.id)
      .map(({ index, size, createdAt }) => ({ index, size, createdAt }))
      .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.index - a.index),
  }));
}

/**
 * What Litestream said went wrong: the `error="…"` of its ERROR lines
 * (it prints those and still exits 0 when a replica cannot be read).
 */
export function litestreamErrorOf(output: string): string | undefined {
  const errors = output
    .split('\n')
    .filter((line) => LOG_LINE.test(line) && line.includes(' level=ERROR '))
    .map((line) => /error="((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? line);
  return errors.length > 0 ? [...new Set(errors)].join('; ') : undefined;
}
