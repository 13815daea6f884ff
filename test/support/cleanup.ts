import { afterAll, beforeEach } from 'bun:test';
import { closeTestApps } from './harness';
import { dropTestAppDatabases } from './postgres-mode';

// Preloaded (bunfig.toml): once the run ends, every database a test app
// opened is closed and its temp folder removed. Under TEST_DATABASE=postgres
// a file's PostgreSQL databases are dropped as the next file's tests begin
// (Bun has no hook for the end of a file), the last file's with the run.
beforeEach(() => dropTestAppDatabases(Bun.main));
afterAll(async () => {
  closeTestApps();
  await dropTestAppDatabases();
});
