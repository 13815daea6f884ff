import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '@/config';
import { isPlainFile } from '@/db/sqlite/client';
import type { Volume } from './free-space';

/**
 * The folders whose file systems the service writes to on its own: the
 * SQLite file's (with its WAL), the backups', and a `file://` replica's.
 * On PostgreSQL the database and its backups are the server's: none of
 * them is this machine's to watch.
 */
export function watchedVolumes(config: Config, sqlite: boolean): Volume[] {
  if (!sqlite) return [];
  const volumes: Volume[] = [];
  if (isPlainFile(config.databasePath))
    volumes.push({ name: 'database', path: dirname(resolve(config.databasePath)) });
  volumes.push({ name: 'backups', path: resolve(config.backups.dir) });
  const replica = config.replica?.url;
  if (replica?.startsWith('file:')) volumes.push({ name: 'replica', path: fileURLToPath(replica) });
  return volumes;
}
