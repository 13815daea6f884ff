import { Database } from 'bun:sqlite';
import { beforeAll, expect, test } from 'bun:test';
import { stopServing } from '@/server';
import { sqliteOnly } from '../support/postgres-mode';
import { type AccountsTestApp, sqliteUnderTest } from './stores';

/** Turns of the event loop, each long enough for a task deferred with setImmediate to run. */
async function turns(count: number) {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

sqliteOnly.describe('its own SQLite file, closed by the stop', 'a graceful stop', () => {
  let ctx: AccountsTestApp;
  beforeAll(async () => {
    ctx = await sqliteUnderTest.app();
  });

  test('waits for the work a reset request answered before doing: its message is queued before the database closes', async () => {
    const user = await ctx.createAccount();
    // The database slow to answer the lookup until the test lets it.
    const store = ctx.deps.stores.accounts;
    const lookUp = store.findUserByEmail;
    const slow = Promise.withResolvers<void>();
    store.findUserByEmail = async (email) => {
      await slow.promise;
      return lookUp(email);
    };
    const res = await ctx.request('POST', '/auth/password-reset', { body: { email: user.email } });
    expect(res.status).toBe(202);
    expect(ctx.deps.deferred.pending).toBe(1);

    let stopped = false;
    const stopping = stopServing({
      server: { stop: async () => {} },
      deps: ctx.deps,
      db: ctx.db,
    }).then(() => {
      stopped = true;
    });
    await turns(20);
    // Still waiting for the reset: the database is open.
    expect(stopped).toBe(false);
    slow.resolve();
    await stopping;
    expect(ctx.deps.deferred.pending).toBe(0);

    const file = new Database(ctx.config.databasePath, { readonly: true });
    try {
      expect(file.query('SELECT recipient, template FROM mail_outbox').all()).toEqual([
        { recipient: user.email, template: 'password-reset' },
      ]);
      expect(file.query('SELECT user_id FROM password_resets').all()).toEqual([
        { user_id: user.id },
      ]);
    } finally {
      file.close();
    }
  });
});
