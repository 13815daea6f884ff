import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './error';

const ProviderNames = z.record(
  z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i),
  z.string().trim().min(1).max(64),
);

/**
 * PASSKEY_PROVIDERS_FILE: a JSON object of AAGUID → provider name that
 * names what the vendored list does not know (a fleet's own security keys,
 * providers newer than the list) or names it otherwise. Read once at start;
 * a bad file stops the start with one line naming the variable.
 */
export function readPasskeyProviders(path: string | undefined): Readonly<Record<string, string>> {
  if (path === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'is not JSON' : 'cannot be read';
    throw new ConfigError(`PASSKEY_PROVIDERS_FILE: "${path}" ${reason}`);
  }
  const names = ProviderNames.safeParse(parsed);
  if (!names.success) {
    throw new ConfigError(
      `PASSKEY_PROVIDERS_FILE: "${path}" must be a JSON object of AAGUID → name (1 to 64 characters)`,
    );
  }
  return Object.freeze(
    Object.fromEntries(Object.entries(names.data).map(([id, name]) => [id.toLowerCase(), name])),
  );
}
