import { afterAll, describe, expect, test } from 'bun:test';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'bun';
import { SQL } from 'bun';
import { postgresHealth } from '@/db/pg/health';
import { isDatabaseHealthy, openDatabase } from '@/db/sqlite/client';
import { sqliteHealth } from '@/db/sqlite/health';
import { storesUnderTest } from '../content/stores';
import { createTestApp, tempDir } from '../support/harness';
import { POSTGRES_ADMIN_URL, pgSuite, postgresAvailable } from '../support/postgres';
import { sqliteOnly } from '../support/postgres-mode';

sqliteOnly.describe('checks the SQLite connection', 'sqliteHealth', () => {
  test('healthy while the connection answers, not once it is closed', async () => {
    const ctx = createTestApp();
    const health = sqliteHealth(ctx.db);
    expect(health.isHealthy()).toBe(true);
    ctx.db.$client.close();
    expect(health.isHealthy()).toBe(false);
  });

  test('not healthy once the file at DATABASE_PATH is gone or another file, while the connection still answers', () => {
    const path = join(tempDir(), 'app.db');
    const db = openDatabase(path);
    try {
      const health = sqliteHealth(db);
      expect(health.isHealthy()).toBe(true);
      renameSync(path, `${path}.moved`);
      expect(isDatabaseHealthy(db)).toBe(true);
      expect(health.isHealthy()).toBe(false);
      writeFileSync(path, '');
      expect(health.isHealthy()).toBe(false);
      rmSync(path);
      renameSync(`${path}.moved`, path);
      expect(health.isHealthy()).toBe(true);
    } finally {
      db.$client.close();
    }
  });
});

describe('postgresHealth', () => {
  const clients: SQL[] = [];
  const open = (url: string) => {
    const client = new SQL(url, { max: 1, connectionTimeout: 5 });
    clients.push(client);
    return client;
  };
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close({ timeout: 0 })));
  });

  test.skipIf(!postgresAvailable)(pgSuite('healthy when SELECT 1 answers'), async () => {
    expect(await postgresHealth(open(POSTGRES_ADMIN_URL)).isHealthy()).toBe(true);
  });

  test('not healthy when nothing listens', async () => {
    const free = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const { port } = free;
    free.stop(true);
    const client = open(`postgres://nobody@127.0.0.1:${port}/none`);
    expect(await postgresHealth(client).isHealthy()).toBe(false);
  });

  test('not healthy, within its timeout, when the server accepts and never answers', async () => {
    const sockets: Socket[] = [];
    const silent = Bun.listen({
      hostname: '127.0.0.1',
      port: 0,
      socket: { open: (socket) => void sockets.push(socket), data() {} },
    });
    try {
      const client = open(`postgres://nobody@127.0.0.1:${silent.port}/none`);
      const started = performance.now();
      expect(await postgresHealth(client, 100).isHealthy()).toBe(false);
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      for (const socket of sockets) socket.end();
      silent.stop(true);
    }
  });
});

for (const store of storesUnderTest()) {
  store.describe('GET /health with the database check of the store', () => {
    test('200, the database named after its backend', async () => {
      const ctx = await store.app();
      const res = await ctx.request<{ status: string; backends: unknown }>('GET', '/health');
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('ok');
      const name = store.name === 'SQLite' ? 'sqlite' : 'postgresql';
      expect(res.body.backends).toEqual({ [name]: 'ok' });
    });
  });
}
