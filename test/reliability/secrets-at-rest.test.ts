import { describe, expect, test } from 'bun:test';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readChallenge } from '@/accounts/challenges';
import { derivedKey } from '@/auth/keys';
import { ConfigError, parseConfig } from '@/config';
import { openDatabase } from '@/db/sqlite/client';
import { createTestApp, tempDir } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';

const modeOf = (file: string) => statSync(file).mode & 0o777;
const SECRET = 'a-secret-of-forty-characters-0123456789';

describe('files at rest', () => {
  sqliteOnly.test(
    'the modes of the SQLite file, its -wal and -shm',
    'the database, its -wal and -shm and the secret file are 0600',
    async () => {
      const ctx = createTestApp();
      const token = await ctx.tokenFor('owner-modes');
      expect((await ctx.request('POST', '/listings/properties', { token, body: {} })).status).toBe(
        422,
      );
      for (const name of ['app.db', 'app.db-wal', 'app.db-shm', 'jwt-secret']) {
        expect([name, modeOf(join(ctx.dir, name))]).toEqual([name, 0o600]);
      }
    },
  );

  test('a database file created with a wider mode is brought down to 0600', () => {
    const dir = tempDir();
    const path = join(dir, 'app.db');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    const db = openDatabase(path);
    db.$client.exec('CREATE TABLE t (x)');
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect(modeOf(file)).toBe(0o600);
    db.$client.close();
  });
});

describe('an existing jwt-secret file', () => {
  const withSecretFile = (content: string, mode: number) => {
    const dir = tempDir();
    const file = join(dir, 'jwt-secret');
    writeFileSync(file, content, { mode });
    chmodSync(file, mode);
    return { dir, file, parse: () => parseConfig({ DATABASE_PATH: join(dir, 'app.db') }) };
  };

  test('0600 or stricter and long enough: used as is', () => {
    for (const mode of [0o600, 0o400]) {
      expect(withSecretFile(`${SECRET}\n`, mode).parse().jwtSecret).toBe(SECRET);
    }
  });

  test.each([0o644, 0o640, 0o604, 0o620])('mode %o is refused naming the file', (mode) => {
    const { file, parse } = withSecretFile(SECRET, mode);
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(
      `${file}: open to group or others (mode 0${mode.toString(8)}); run chmod 600 on it`,
    );
  });

  test('shorter than JWT_SECRET must be: refused without showing it', () => {
    const { file, parse } = withSecretFile('too-short-secret\n', 0o600);
    expect(parse).toThrow(`${file}: the secret must be at least 32 characters (got 16, not shown)`);
  });

  test('the server exits 1 with one line naming the file', async () => {
    const { dir, file } = withSecretFile(SECRET, 0o644);
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
      env: { ...process.env, DATABASE_PATH: join(dir, 'app.db'), JWT_SECRET: '' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    expect(await proc.exited).toBe(1);
    const lines = (await new Response(proc.stderr).text()).trim().split('\n');
    expect(lines).toEqual([
      `Invalid configuration: ${file}: open to group or others (mode 0644); run chmod 600 on it`,
    ]);
  });
});

describe('one key per purpose', () => {
  test('the derived key differs from the secret and is stable', () => {
    const key = derivedKey(SECRET, 'passkey-challenge');
    expect(key).toBe(derivedKey(SECRET, 'passkey-challenge'));
    expect(key).not.toBe(SECRET);
    expect(key).not.toBe(derivedKey(`${SECRET}x`, 'passkey-challenge'));
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
  });

  test('passkey challenges are keyed by the derived key, not by the signing secret', async () => {
    const ctx = createTestApp({ env: { JWT_SECRET: SECRET } });
    const res = await ctx.request<{ challenge: string }>(
      'POST',
      '/auth/passkey/authenticate/options',
      { body: {} },
    );
    expect(res.status).toBe(200);
    const read = (key: string) =>
      readChallenge(
        key,
        res.body.challenge,
        { kind: 'authentication', boundTo: null },
        ctx.clock(),
      );
    expect(read(derivedKey(SECRET, 'passkey-challenge'))?.challenge).toBe(res.body.challenge);
    expect(read(SECRET)).toBeNull();
  });
});
