/**
 * `npm run bench:password-reset`: what `POST /auth/password-reset` costs
 * for an address with an account and for one without, through the
 * service's request pipeline in-process, on a SQLite file. Two figures per
 * case: the **answer** (from the request to its 202, what a caller can
 * time) and the **deferred work** after it (the lookup, the link, the
 * message: the account's also stores the link and queues the message),
 * drained after each request and timed apart. The two cases alternate
 * request by request, for `--rounds` rounds of `--calls` requests each
 * (after one round of warm-up); the median µs per request of each, and
 * the ratios, are printed, so a busy machine's drift falls on both alike.
 *
 *   npm run bench:password-reset [-- --calls 2000 --rounds 7]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { insertUser } from '@/accounts/users';
import { createService } from '@/app';
import { toolContext } from '@/audit/record';
import { parseConfig } from '@/config';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { buildDeps } from '@/deps';
import { createLogger } from '@/logger';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    calls: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '7' },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);

const dir = mkdtempSync(join(tmpdir(), 'bench-password-reset-'));
const config = parseConfig({
  DATABASE_PATH: join(dir, 'app.db'),
  LOG_LEVEL: 'silent',
  PASSWORD_RESETS_PER_IP_PER_HOUR: '1000000',
  PASSWORD_RESETS_PER_ACCOUNT_PER_HOUR: '1000000',
});
const db = openDatabase(config.databasePath);
migrateDatabase(db);
const cheap = { hash: async () => 'not a real hash', verify: async () => false };
const deps = buildDeps({ config, db, logger: createLogger('silent'), hasher: cheap });
await insertUser(
  deps.stores.accounts,
  { email: 'known@example.com', password: 'unused passphrase', role: 'customer' },
  { hasher: cheap, caller: { address: 'bench' } },
  { action: 'account.created', audit: toolContext(Date.now()) },
);
const service = createService(deps);

interface Timing {
  answer: number;
  work: number;
}

/** One request for `email`: ns to its 202, then ns of the work deferred after it. */
async function timeRequest(email: string): Promise<Timing> {
  const request = new Request('http://localhost/auth/password-reset', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  const asked = Bun.nanoseconds();
  const response = await service.fetch(request);
  await response.arrayBuffer();
  const answered = Bun.nanoseconds();
  if (response.status !== 202) throw new Error(`answered ${response.status}`);
  await deps.deferred.drain();
  return { answer: answered - asked, work: Bun.nanoseconds() - answered };
}

/**
 * One round: `CALLS` requests per case, the two cases alternating request
 * by request (each going first half the time); µs per request of each.
 */
async function timeRound(): Promise<{ known: Timing; unknown: Timing }> {
  const known = { answer: 0, work: 0 };
  const unknown = { answer: 0, work: 0 };
  const add = (sum: Timing, one: Timing) => {
    sum.answer += one.answer / CALLS / 1000;
    sum.work += one.work / CALLS / 1000;
  };
  for (let i = 0; i < CALLS; i++) {
    if (i % 2 === 0) {
      add(known, await timeRequest('known@example.com'));
      add(unknown, await timeRequest('nobody@example.com'));
    } else {
      add(unknown, await timeRequest('nobody@example.com'));
      add(known, await timeRequest('known@example.com'));
    }
  }
  return { known, unknown };
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
await timeRound(); // warm-up, not counted
const rounds: { known: Timing; unknown: Timing }[] = [];
for (let round = 0; round < ROUNDS; round++) rounds.push(await timeRound());
const show = (label: string, key: keyof Timing) => {
  const k = median(rounds.map((run) => run.known[key]));
  const u = median(rounds.map((run) => run.unknown[key]));
  console.log(
    `${label} with an account ${k.toFixed(1)} µs, without ${u.toFixed(1)} µs: ratio ${(k / u).toFixed(2)}`,
  );
};
console.log(`median of ${ROUNDS} rounds of ${CALLS} requests per case`);
show('answer (to the 202):   ', 'answer');
show('deferred work (after): ', 'work');
db.$client.close();
rmSync(dir, { recursive: true, force: true });
