import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MIN_SECRET_LENGTH } from './env';
import { ConfigError } from './error';

/**
 * JWT_SECRET, when unset, is generated once and kept beside the database so
 * tokens survive restarts. An in-memory database gets a
 * throw-away secret.
 */
export function loadOrCreateSecret(databasePath: string): string {
  if (databasePath === ':memory:') return randomBytes(32).toString('base64url');
  const file = join(dirname(databasePath), 'jwt-secret');
  if (existsSync(file)) return readSecretFile(file);
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}

/**
 * An existing secret file is used only if no one but its owner can read it
 * (mode 0600 or stricter) and it is as long as JWT_SECRET must be.
 */
function readSecretFile(file: string): string {
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) {
    throw new ConfigError(
      `${file}: open to group or others (mode ${mode.toString(8).padStart(4, '0')}); run chmod 600 on it`,
    );
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(
      `${file}: the secret must be at least ${MIN_SECRET_LENGTH} characters (got ${secret.length}, not shown)`,
    );
  }
  return secret;
}
