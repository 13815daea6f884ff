import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/harness';
import {
  employeeToken,
  freePort,
  JWT_SECRET,
  pool,
  randomProperty,
  seeded,
  startServer,
} from './support';

/**
 * An online backup under load: creates keep flowing from several clients
 * while POST /admin/backups snapshots the live database; the backup is
 * downloaded, restored with `bun run restore` into a new file and served by
 * a second server. Every create acknowledged (201) before the backup was
 * asked for must be in it, and the restored file must pass integrity_check.
 */

const TOTAL = 1500;
const CLIENTS = 8;
/** The backup is asked for once this many creates have been acknowledged. */
const BACKUP_AFTER = 400;

const root = join(import.meta.dir, '..', '..');

test('a backup taken mid-burst restores into a new server with every earlier 201', async () => {
  const dir = tempDir('listings-backup-');
  // A burst of creates with up to 30 units each counts far past an employee's
  // write budget; what is tested is the backup, not the limit.
  const env = {
    DATABASE_PATH: join(dir, 'app.db'),
    JWT_SECRET,
    RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '100000000',
  };
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const token = await employeeToken();
  const auth = { authorization: `Bearer ${token}` };
  const random = seeded(17);
  const bodies = Array.from({ length: TOTAL }, (_, i) => randomProperty(random, `Backup st ${i}`));

  const server = await startServer(port, env);
  const acknowledgedBefore: string[] = [];
  let acknowledged = 0;
  let duringBackup = 0;
  let backupAsked = false;
  let backupDone = false;
  let backup: Promise<Response> | undefined;
  try {
    await pool(TOTAL, CLIENTS, async (i) => {
      const res = await fetch(`${base}/listings/properties`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(bodies[i]),
      });
      await res.arrayBuffer();
      expect(res.status).toBe(201);
      const id = res.headers.get('location')!.split('/').pop()!;
      acknowledged += 1;
      if (!backupAsked) acknowledgedBefore.push(id);
      else if (!backupDone) duringBackup += 1;
      if (acknowledged === BACKUP_AFTER) {
        backupAsked = true;
        backup = fetch(`${base}/admin/backups`, { method: 'POST', headers: auth }).finally(() => {
          backupDone = true;
        });
      }
    });
    const answer = await backup!;
    expect(answer.status).toBe(201);
    const location = answer.headers.get('location')!;
    const run = (await answer.json()) as { details: { durationMs: number; size: number } };
    const download = await fetch(`${base}${location}`, { headers: auth });
    expect(download.status).toBe(200);
    const file = join(tempDir(), 'downloaded.db.gz');
    writeFileSync(file, Buffer.from(await download.arrayBuffer()));
    console.log(
      `backup: ${acknowledgedBefore.length} acknowledged before it, ${duringBackup} while it ran ` +
        `(${run.details.durationMs} ms, ${run.details.size} bytes compressed)`,
    );

    // Restore into a new database file and serve it.
    const restored = join(tempDir('listings-restored-'), 'app.db');
    const restore = Bun.spawnSync([process.execPath, 'scripts/restore.ts', file], {
      cwd: root,
      env: { ...process.env, DATABASE_PATH: restored, JWT_SECRET },
    });
    expect(restore.stderr.toString()).toBe('');
    expect(restore.exitCode).toBe(0);
    const check = new Database(restored, { readonly: true });
    expect(check.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    const count = (check.query('SELECT count(*) AS n FROM properties').get() as { n: number }).n;
    check.close();
    expect(count).toBeGreaterThanOrEqual(acknowledgedBefore.length);
    expect(count).toBeLessThanOrEqual(TOTAL);

    const secondPort = freePort();
    const second = await startServer(secondPort, { DATABASE_PATH: restored, JWT_SECRET });
    try {
      const missing: string[] = [];
      await pool(acknowledgedBefore.length, CLIENTS, async (i) => {
        const id = acknowledgedBefore[i]!;
        const res = await fetch(`http://127.0.0.1:${secondPort}/listings/properties/${id}`, {
          headers: auth,
        });
        await res.arrayBuffer();
        if (res.status !== 200) missing.push(id);
      });
      expect(missing).toEqual([]);
    } finally {
      second.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    server.kill('SIGTERM');
    await server.exited;
  }
}, 120_000);
