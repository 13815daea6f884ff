/**
 * `bun run bench:noisy-neighbours`: whether one tenant working inside every
 * documented limit slows another (docs/limits-and-quotas.md, "Noisy
 * neighbours"). For each pattern a victim works normally, first alone, then
 * beside a hostile caller at its limits; the victim's requests, success
 * rate, p50 and p99 are printed quiet and under attack, with each target
 * met or not (bench/noisy-neighbours-scenarios.ts holds the patterns).
 * Exits 1 when a target is not met.
 *
 *   bun run bench:noisy-neighbours [-- --store sqlite|postgres|both]
 *     [--only hasher|long-polls|webhooks|payloads|walk] [--seconds 10]
 *     [--scale 1] [--markdown]
 *
 * `--scale 0.1` seeds a tenth of the events and deliveries (a quick run);
 * the counts that decide a target (250 overwrites, 2,100 sort changes) stay.
 */
import { parseArgs } from 'node:util';
import {
  PATTERNS,
  type Pattern,
  type PatternResult,
  ratio,
  runPattern,
  type StoreName,
  type Summary,
  scaled,
  storeSkipReason,
} from './noisy-neighbours-scenarios';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    store: { type: 'string', default: 'sqlite' },
    only: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    scale: { type: 'string', default: '1' },
    markdown: { type: 'boolean', default: false },
  },
});

const usage = `usage: bun run bench:noisy-neighbours -- [--store sqlite|postgres|both] [--only ${PATTERNS.join('|')}] [--seconds N] [--scale 0<S≤1] [--markdown]`;
const stores: StoreName[] =
  values.store === 'both'
    ? ['sqlite', 'postgres']
    : values.store === 'postgres'
      ? ['postgres']
      : ['sqlite'];
const seconds = Number(values.seconds);
const scale = Number(values.scale);
if (
  !['sqlite', 'postgres', 'both'].includes(values.store) ||
  (values.only !== undefined && !PATTERNS.includes(values.only as Pattern)) ||
  !(seconds >= 1 && seconds <= 120) ||
  !(scale > 0 && scale <= 1)
) {
  console.error(usage);
  process.exit(2);
}
const patterns = values.only === undefined ? [...PATTERNS] : [values.only as Pattern];
const sizes = scaled(scale, seconds);

const ms = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : '—');
const pct = (s: Summary) => `${(s.success * 100).toFixed(1)} %`;
const failures = (s: Summary) =>
  Object.entries(s.failures)
    .map(([status, n]) => `${n}× ${status === '0' ? 'no answer' : status}`)
    .join(', ') || 'none';
const tally = (t: Record<string, number>) =>
  Object.entries(t)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ') || 'none';

function printText(r: PatternResult) {
  console.log(`\n== ${r.pattern} on ${r.store}: the victim ${r.victim}`);
  for (const [label, s] of [
    ['quiet', r.quiet],
    ['under attack', r.attacked],
  ] as const) {
    console.log(
      `  ${label.padEnd(13)} ${String(s.requests).padStart(5)} requests, ${pct(s)} 2xx (non-2xx: ${failures(s)}), p50 ${ms(s.p50)}, p99 ${ms(s.p99)}`,
    );
  }
  console.log(
    `  ratio         p50 ${ratio(r.attacked.p50, r.quiet.p50)}, p99 ${ratio(r.attacked.p99, r.quiet.p99)}`,
  );
  console.log(`  hostile       ${tally(r.hostile)}`);
  for (const [name, value] of Object.entries(r.figures)) console.log(`  ${name}: ${value}`);
  for (const t of r.targets) console.log(`  [${t.met ? 'met' : 'NOT MET'}] ${t.name}: ${t.value}`);
}

function printMarkdown(results: PatternResult[]) {
  console.log(
    '\n| pattern | store | victim requests quiet / attacked | 2xx quiet / attacked | non-2xx attacked | p50 quiet → attacked | p99 quiet → attacked (ratio) | hostile | targets |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    const targets = r.targets
      .map((t) => `${t.met ? 'met' : '**not met**'}: ${t.name} (${t.value})`)
      .join('; ');
    const figures = Object.entries(r.figures)
      .map(([name, value]) => `${name}: ${value}`)
      .join('; ');
    console.log(
      `| ${r.pattern} | ${r.store} | ${r.quiet.requests} / ${r.attacked.requests} | ${pct(r.quiet)} / ${pct(r.attacked)} | ${failures(r.attacked)} | ${ms(r.quiet.p50)} → ${ms(r.attacked.p50)} | ${ms(r.quiet.p99)} → ${ms(r.attacked.p99)} (${ratio(r.attacked.p99, r.quiet.p99)}) | ${tally(r.hostile)} | ${targets}${figures ? `; ${figures}` : ''} |`,
    );
  }
}

console.log(
  `noisy neighbours: ${patterns.join(', ')} on ${stores.join(' and ')}; ${seconds} s a phase, scale ${scale} (hostile events ${sizes.hostileEvents}, deliveries ${sizes.deliveries}, ${sizes.polls} polls, ${sizes.overwrites} overwrites, ${sizes.sortChanges} sort changes)`,
);
const results: PatternResult[] = [];
for (const store of stores) {
  const skip = storeSkipReason(store);
  if (skip) {
    console.log(`\n${store}: skipped (${skip})`);
    continue;
  }
  for (const pattern of patterns) {
    const result = await runPattern(store, pattern, sizes);
    results.push(result);
    printText(result);
  }
}
if (values.markdown) printMarkdown(results);
const unmet = results.flatMap((r) =>
  r.targets.filter((t) => !t.met).map((t) => `${r.pattern}/${r.store}: ${t.name}`),
);
console.log(
  `\n${results.length} pattern runs; ${unmet.length === 0 ? 'every target met' : `not met: ${unmet.join('; ')}`}`,
);
if (unmet.length > 0) process.exitCode = 1;
