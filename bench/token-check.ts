/**
 * `bun run bench:token-check`: what a bearer token's check costs in-process
 * once the token is cached (every request after a caller's first), with no
 * cut-off stored, with 10,000 cut-offs of other accounts, and with one for
 * the token's own account that it passes (issued after it). Each case is
 * timed over `--calls` calls of `cached()` (the fast lane's check) and of
 * `verify()` (the routes' check, a promise); the cases take turns for
 * `--rounds` rounds and the median ns per call is printed, so a busy
 * machine's drift falls on every case alike.
 *
 * Run from a build without cut-offs (a copy of this file in its bench/), it
 * measures the "no cut-off" case only: the check as it was before.
 *
 *   bun run bench:token-check [-- --calls 1000000 --rounds 7]
 */
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    calls: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '7' },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';
const SUBJECT = 'bench-employee';

/** The cut-off API, when this build has one. */
type Cutoffs = { replaceCutoffs(cutoffs: Iterable<readonly [string, number]>): void };
const hasCutoffs = (tokens: TokenService): tokens is TokenService & Cutoffs =>
  'replaceCutoffs' in tokens;

interface Case {
  name: string;
  tokens: TokenService;
  token: string;
}

async function prepare(name: string, cutoffs: [string, number][]): Promise<Case | undefined> {
  const tokens = new TokenService(SECRET);
  if (cutoffs.length > 0) {
    if (!hasCutoffs(tokens)) return undefined;
    tokens.replaceCutoffs(cutoffs);
  }
  const token = await tokens.issue(SUBJECT, 'employee', 3600);
  if (!(await tokens.verify(token))) throw new Error(`${name}: the token is refused`);
  return { name, tokens, token };
}

const earlier = Date.now() - 60_000;
const others = Array.from({ length: 10_000 }, (_, n): [string, number] => [
  `revoked-${n}`,
  earlier,
]);
const cases = (
  await Promise.all([
    prepare('no cut-off stored', []),
    prepare('10,000 cut-offs of other accounts', others),
    prepare('10,000 others and its own, passed', [...others, [SUBJECT, earlier]]),
  ])
).filter((entry) => entry !== undefined);

function timeCached({ tokens, token }: Case): number {
  let seen = 0;
  const started = Bun.nanoseconds();
  for (let n = 0; n < CALLS; n++) if (tokens.cached(token)) seen++;
  const elapsed = Bun.nanoseconds() - started;
  if (seen !== CALLS) throw new Error('a cached token was refused');
  return elapsed / CALLS;
}

async function timeVerify({ tokens, token }: Case): Promise<number> {
  let seen = 0;
  const started = Bun.nanoseconds();
  for (let n = 0; n < CALLS; n++) if (await tokens.verify(token)) seen++;
  const elapsed = Bun.nanoseconds() - started;
  if (seen !== CALLS) throw new Error('a cached token was refused');
  return elapsed / CALLS;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const figures = new Map(
  cases.map((entry) => [entry.name, { cached: [] as number[], verify: [] as number[] }]),
);
for (const entry of cases) timeCached(entry); // warm-up: JIT
for (let round = 0; round < ROUNDS; round++) {
  for (const entry of cases) {
    figures.get(entry.name)!.cached.push(timeCached(entry));
    figures.get(entry.name)!.verify.push(await timeVerify(entry));
  }
}
console.log(`token check, ${CALLS.toLocaleString('en')} calls a case, median of ${ROUNDS} rounds:`);
for (const [name, { cached, verify }] of figures) {
  const range = (values: number[]) =>
    `${median(values).toFixed(1)} ns (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
  console.log(`  ${name}: cached() ${range(cached)}, verify() ${range(verify)}`);
}
