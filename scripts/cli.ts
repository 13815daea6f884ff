import { parseArgs } from 'node:util';
import { ConfigError, parseConfig } from '@/config';

/** Shared start of the operator commands: parsed flags and a valid config. */
export function cli<T extends Record<string, { type: 'string' | 'boolean' }>>(
  usage: string,
  options: T,
) {
  try {
    const { values } = parseArgs({ args: Bun.argv.slice(2), options, strict: true });
    return { values, config: parseConfig(process.env) };
  } catch (error) {
    fail(error instanceof ConfigError ? `Invalid configuration: ${error.message}` : usage);
  }
}

export function fail(message: string): never {
  console.error(message);
  process.exit(1);
}
