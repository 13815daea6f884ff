/**
 * `npm run bench:password-reset`: what `POST /auth/password-reset` costs
 * in-process for an address with an account and for one without, on a
 * SQLite file. The answer is the same for both; this measures how close
 * their work is (the account's also stores the link and queues the
 * message). The two cases take turns for `--rounds` rounds of `--calls`
 * requests each; the median µs per request of each, and their ratio, are
 * printed, so a busy machine's drift falls on both alike.
 *
 *   npm run bench:password-reset [-- --calls 2000 --rounds 7]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AddressLimit } from '@/accounts/address-limit';
import { requestPasswordReset } from '@/accounts/password-reset';
import { sqliteAccountStore } from '@/accounts/sqlite-store';
import { insertUser } from '@/accounts/users';
import { toolContext } from '@/audit/record';
import { migrateDatabase, openDatabase } from '@/db/client';

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
const db = openDatabase(join(dir, 'app.db'));
migrateDatabase(db);
const store = sqliteAccountStore(db);
const cheap = { hash: async () => 'not a real hash', verify: async () => false };
await insertUser(
  store,
  { email: 'known@example.com', password: 'unused passphrase', role: 'customer' },
  { hasher: cheap, caller: { address: 'bench' } },
  { action: 'account.created', audit: toolContext(Date.now()) },
);
const unbounded = () => new AddressLimit(Number.MAX_SAFE_INTEGER, 3_600_000, Date.now);
const deps = { store, limits: { perAddress: unbounded(), perAccount: unbounded() } };

async function timeCase(email: string): Promise<number> {
  const started = Bun.nanoseconds();
  for (let i = 0; i < CALLS; i++) {
    await requestPasswordReset(
      deps,
      { email, address: 'bench', language: 'en', origin: 'http://localhost', service: 'Bench' },
      toolContext(Date.now()),
    );
  }
  return (Bun.nanoseconds() - started) / CALLS / 1000;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const known: number[] = [];
const unknown: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  known.push(await timeCase('known@example.com'));
  unknown.push(await timeCase('nobody@example.com'));
}
const k = median(known);
const u = median(unknown);
console.log(`address with an account: ${k.toFixed(1)} µs per request (median of ${ROUNDS})`);
console.log(`address without one:     ${u.toFixed(1)} µs per request`);
console.log(`ratio with / without:    ${(k / u).toFixed(2)}`);
db.$client.close();
rmSync(dir, { recursive: true, force: true });
