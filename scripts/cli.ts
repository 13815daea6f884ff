/**
 * The shared start of the operator commands. Each command is described once
 * (a `CommandSpec`: what it does, its options, operands and the environment
 * variables it reads); from that come its argument parsing, its `--help` and
 * its refusals. Exit codes: 0 done, 1 failed (invalid configuration, an
 * operation refused), 2 bad usage (one line naming the option, then where
 * the help is).
 */
import { parseArgs } from 'node:util';
import { type Config, ConfigError, parseConfig } from '@/config';

export interface OptionSpec {
  type: 'string' | 'boolean';
  meaning: string;
  /** How the value is shown in the help (`EMAIL`, `FILE`); string options only. */
  value?: string;
  /** The only values accepted. */
  choices?: readonly string[];
  /** What a value must be, for the refusal (`--ttl must be a duration …`), and the check. */
  accepts?: { what: string; test(value: string): boolean };
  required?: boolean;
}

/** What the environment variables mean to most commands; a command may say more. */
const VARIABLE_MEANINGS = {
  DATABASE_PATH: 'the SQLite database file (default ./data/app.db)',
  REPLICA_URL:
    'the Litestream replica of the SQLite file (file://, sftp:// or s3://) and its REPLICA_* companions',
  DATABASE_URL:
    'a postgres:// URL: when set, the rows are in PostgreSQL instead of DATABASE_PATH (JWT_SECRET must then be set too)',
  JWT_SECRET: 'the token signing key (default: the jwt-secret file beside DATABASE_PATH)',
  BACKUP_DIR: 'the backup folder (default: backups/ beside DATABASE_PATH)',
  BACKUP_KEEP: 'backups kept in BACKUP_DIR; older ones are deleted (default 7)',
  PORT: 'the port the server listens on (default 3000)',
  PUBLIC_ORIGIN: 'the address callers use (e.g. https://listings.example.com)',
  TLS_CERT_PATH: 'set (with TLS_KEY_PATH): the server speaks https',
  SMTP_HOST: 'the SMTP server mail is sent through (unset: mail is written to the log)',
  SMTP_PORT: 'its port (default 465 with SMTP_TLS=implicit, 587 with starttls, 25 with none)',
  SMTP_TLS: 'implicit, starttls (default) or none',
  SMTP_USER: 'the user name to sign in to the SMTP server with, if it asks for one',
  SMTP_PASSWORD: 'its password (or SMTP_PASSWORD_FILE: a file holding it)',
  SMTP_PASSWORD_FILE: 'a file holding the SMTP password, instead of SMTP_PASSWORD',
  SMTP_TLS_CA_FILE: "a PEM file of the CA of the SMTP server's certificate, when not a public one",
  MAIL_FROM: 'the From address, e.g. "Listings <listings@example.com>" (required with SMTP_HOST)',
  MAIL_NOTIFICATIONS:
    'the security notifications mailed to account holders, comma-separated, or none (default: all)',
} as const;

export type VariableName = keyof typeof VARIABLE_MEANINGS;

export interface CommandSpec<O extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  /** The npm script: `npm run <name>`. */
  name: string;
  /** One sentence: what the command does. */
  summary: string;
  options: O;
  /** Arguments without a dash, by name, in order: each one required, but one named `[NAME]`. */
  operands?: Readonly<Record<string, string>>;
  /** What follows `npm run <name> --`, when the options alone do not say it. */
  usage?: string;
  /** The variables read, with the shared meaning (`true`) or this command's own. */
  variables: Partial<Record<VariableName, true | string>>;
  /** Further lines of help: examples, what to know. */
  notes?: readonly string[];
}

/** Keeps the options' literal types, so `values` is typed by them. */
export const defineCommand = <const O extends Record<string, OptionSpec>>(spec: CommandSpec<O>) =>
  spec;

/** A string option with choices is one of them. */
type ValueOf<S extends OptionSpec> = S['choices'] extends readonly (infer C)[] ? C : string;

type Values<O extends Record<string, OptionSpec>> = {
  [K in keyof O]: O[K]['type'] extends 'boolean'
    ? boolean | undefined
    : O[K]['required'] extends true
      ? ValueOf<O[K]>
      : ValueOf<O[K]> | undefined;
};

const HELP_OPTION = '-h, --help';
const EXIT_CODES = 'exit status: 0 done, 1 failed, 2 bad usage (the message names the option)';

const label = (name: string, option: OptionSpec) =>
  option.type === 'boolean'
    ? `--${name}`
    : `--${name} ${option.value ?? option.choices?.join('|') ?? 'VALUE'}`;

/** `npm run <name> -- <options>`: required options bare, the others in brackets. */
export function usageOf(spec: CommandSpec): string {
  const generated = [
    ...Object.entries(spec.options).map(([name, option]) =>
      option.required ? label(name, option) : `[${label(name, option)}]`,
    ),
    ...Object.keys(spec.operands ?? {}),
  ].join(' ');
  const args = spec.usage ?? generated;
  return `npm run ${spec.name}${args ? ` -- ${args}` : ''}`;
}

/** Names and meanings in two columns. */
function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, meaning]) => `  ${name.padEnd(width)}  ${meaning}`);
}

export function helpOf(spec: CommandSpec): string {
  const options = Object.entries(spec.options).map(
    ([name, option]) =>
      [
        label(name, option),
        option.required ? `${option.meaning} (required)` : option.meaning,
      ] as const,
  );
  const variables = Object.entries(spec.variables).map(
    ([name, meaning]) =>
      [name, meaning === true ? VARIABLE_MEANINGS[name as VariableName] : meaning] as const,
  );
  return [
    spec.summary,
    '',
    `usage: ${usageOf(spec)}`,
    ...(spec.operands ? ['', 'arguments:', ...table(Object.entries(spec.operands))] : []),
    '',
    'options:',
    ...table([...options, [HELP_OPTION, 'print this help and exit']]),
    '',
    'environment:',
    ...(variables.length > 0 ? table(variables) : ['  none']),
    ...(spec.notes ? ['', ...spec.notes] : []),
    '',
    EXIT_CODES,
  ].join('\n');
}

/** Prints `message` on stderr and exits 1: a failure, not a usage error. */
export function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/** One line naming what was wrong, then where the help is; exit 2. */
function usageError(spec: CommandSpec, message: string): never {
  console.error(`${spec.name}: ${message}\ntry: npm run ${spec.name} -- --help`);
  process.exit(2);
}

/** Runs `read`; a ConfigError exits 1 with its one line, as the server's start does. */
export function configOrFail<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigError) fail(`Invalid configuration: ${error.message}`);
    throw error;
  }
}

/** The whole configuration, as the server reads it. */
export const loadConfig = (): Config => configOrFail(() => parseConfig(process.env));

/**
 * Parses the arguments of `spec`: `--help` prints the help and exits 0;
 * anything the spec does not allow exits 2. Nothing else is read before:
 * no configuration, no database, no stdin.
 */
export function command<const O extends Record<string, OptionSpec>>(
  spec: CommandSpec<O>,
  argv: readonly string[] = Bun.argv.slice(2),
) {
  const refuse = (message: string): never => usageError(spec, message);
  // `bun run x -- args` may hand the separator over.
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  const { values, positionals, tokens } = parseArgs({
    args,
    options: {
      ...Object.fromEntries(
        Object.entries(spec.options).map(([name, { type }]) => [name, { type }]),
      ),
      help: { type: 'boolean', short: 'h' },
    },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (tokens.some((token) => token.kind === 'option' && token.name === 'help')) {
    console.log(helpOf(spec));
    process.exit(0);
  }
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = spec.options[token.name];
    if (!option) refuse(`unknown option ${token.rawName}`);
    else if (option.type === 'boolean' && token.value !== undefined) {
      refuse(`${token.rawName} takes no value`);
    } else if (
      option.type === 'string' &&
      (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))
    ) {
      refuse(`${token.rawName} needs a value (${label(token.name, option)})`);
    }
  }
  const operands = Object.keys(spec.operands ?? {});
  if (positionals.length > operands.length) {
    refuse(`unexpected argument "${positionals[operands.length]}"`);
  }
  const missingOperand = operands.filter((name) => !name.startsWith('['))[positionals.length];
  if (missingOperand) refuse(`missing ${missingOperand}`);
  for (const [name, option] of Object.entries(spec.options)) {
    const value = values[name];
    if (option.required && value === undefined) refuse(`--${name} is required`);
    if (option.choices && typeof value === 'string' && !option.choices.includes(value)) {
      refuse(`--${name} must be ${option.choices.join(' or ')} (got "${value}")`);
    }
    if (option.accepts && typeof value === 'string' && !option.accepts.test(value)) {
      refuse(`--${name} must be ${option.accepts.what} (got "${value}")`);
    }
  }
  return {
    values: values as Values<O>,
    operands: positionals,
    /** Exit 2 with one line: for what only the command itself can check. */
    refuse,
  };
}
