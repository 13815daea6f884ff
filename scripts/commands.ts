/**
 * What each operator command does, takes and reads: the one description
 * its parsing, its `--help` and its refusals come from (scripts/cli.ts).
 * `name` is the npm script; package.json runs `bun scripts/<file>` for it.
 */
import { z } from 'zod';
import { parseDuration } from '@/auth/tokens';
import { MAX_UNITS } from '@/listings/properties/schemas';
import { MAIL_LANGUAGES } from '@/mail/templates';
import { defineCommand } from './cli';

const EMAIL = {
  what: 'an email address',
  test: (value: string) => z.email().safeParse(value).success,
};
const ACCOUNT_EMAIL = {
  type: 'string',
  value: 'EMAIL',
  meaning: "the account's email",
  required: true,
  accepts: EMAIL,
} as const;
const COUNT = { what: 'a whole number', test: (value: string) => /^\d+$/.test(value) };

/** `K` or `MIN-MAX` units per property, within 1..MAX_UNITS. */
export function unitRangeOf(value: string): { min: number; max: number } | undefined {
  const match = /^(\d+)(?:-(\d+))?$/.exec(value);
  if (!match) return undefined;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  return min >= 1 && min <= max && max <= MAX_UNITS ? { min, max } : undefined;
}

const DATABASE = { DATABASE_URL: true, DATABASE_PATH: true } as const;
/** What a command that notifies an account holder reads for the message. */
const NOTIFIED = {
  MAIL_NOTIFICATIONS: true,
  PUBLIC_ORIGIN: 'the address the link in the message starts with',
} as const;
/** backup and restore copy the SQLite file. */
const SQLITE_ONLY =
  'set: refused, the rows are in PostgreSQL (copy them with pg_dump and pg_restore)';

export const userCreateCommand = defineCommand({
  name: 'user:create',
  summary:
    'Creates an account (a customer unless --role employee) on the database the server uses and prints it as JSON.',
  usage: '--email EMAIL [--role customer|employee]',
  options: {
    email: ACCOUNT_EMAIL,
    role: {
      type: 'string',
      choices: ['customer', 'employee'],
      meaning: 'what the account may do (default customer)',
    },
    password: {
      type: 'string',
      value: 'PASSWORD',
      meaning: 'discouraged: visible to other users of the machine; pipe it on stdin instead',
    },
  },
  variables: DATABASE,
  notes: [
    'The password (8 characters or more) is the first line of stdin when it is piped, otherwise typed at a prompt without echo:',
    '  printf \'%s\\n\' "$PASSWORD" | npm run user:create -- --email ops@example.com --role employee',
  ],
});

export const userPasswordCommand = defineCommand({
  name: 'user:password',
  summary:
    "Sets an account's password, ends its sessions and revokes its bearer tokens; prints the account as JSON.",
  options: {
    email: ACCOUNT_EMAIL,
  },
  variables: { ...DATABASE, ...NOTIFIED },
  notes: [
    'The new password (8 characters or more) is the first line of stdin when it is piped, otherwise typed at a prompt without echo.',
    'The account holder is mailed a password-changed notification, in English, sent by the running server (docs/accounts.md#notifications).',
  ],
});

export const userDisableCommand = defineCommand({
  name: 'user:disable',
  summary:
    'Disables an account (sign-in, sessions and bearer tokens refused), or enables it again; prints the account as JSON.',
  options: {
    email: ACCOUNT_EMAIL,
    enable: {
      type: 'boolean',
      meaning: 'enable the account instead (its earlier tokens stay refused)',
    },
  },
  variables: { ...DATABASE, ...NOTIFIED },
  notes: [
    'The last active employee cannot be disabled (exit 1).',
    'Disabling mails the account holder an account-disabled notification, in English, sent by the running server (docs/accounts.md#notifications).',
  ],
});

export const userVerifyCommand = defineCommand({
  name: 'user:verify',
  summary:
    "Marks an account's email address verified, as following its verification link does; prints the account as JSON.",
  options: { email: ACCOUNT_EMAIL },
  variables: { ...DATABASE },
  notes: [
    'An address verified already is left as it is. The bearer tokens issued before (they say unverified) are refused from then on.',
  ],
});

export const tokenCommand = defineCommand({
  name: 'token',
  summary: 'Prints a signed bearer token (a JWT) for an account, to stdout alone.',
  usage:
    '(--email EMAIL | --sub ID) [--aud customer|employee] [--ttl DURATION] [--allow-role-mismatch]',
  options: {
    email: {
      type: 'string',
      value: 'EMAIL',
      meaning: 'the account: its id is the sub',
      accepts: EMAIL,
    },
    sub: { type: 'string', value: 'ID', meaning: 'the subject (an account id, or any id)' },
    aud: {
      type: 'string',
      choices: ['customer', 'employee'],
      meaning: "the audience: required with --sub; with --email the account's role by default",
    },
    ttl: {
      type: 'string',
      value: 'DURATION',
      meaning: 'how long it is valid: 90 (seconds), 30m, 1h, 7d (default 1h)',
      accepts: {
        what: 'a duration such as 90, 30m, 1h or 7d',
        test: (value: string) => parseDuration(value) !== null,
      },
    },
    'allow-role-mismatch': {
      type: 'boolean',
      meaning: "mint even when --aud is not the account's role (a warning is printed)",
    },
  },
  variables: {
    JWT_SECRET: true,
    DATABASE_URL: true,
    DATABASE_PATH: 'the SQLite database the account is looked up in (default ./data/app.db)',
  },
  notes: [
    'An --aud that is not the role of the account (found by --email, or by --sub when it is an account id) is refused (exit 2): the service grants what the audience says.',
    'A --sub that is no account is signed as given (no role to compare).',
    'To capture the token: TOKEN=$(npm run --silent token -- --email ops@example.com)',
  ],
});

export const backupCommand = defineCommand({
  name: 'backup',
  summary:
    'Writes a compressed, consistent copy of the SQLite database (the server may keep running) and prunes old backups.',
  options: {
    out: {
      type: 'string',
      value: 'FILE',
      meaning: 'write here instead (never replaces a file; nothing is pruned)',
    },
  },
  variables: {
    DATABASE_PATH: true,
    BACKUP_DIR: 'where the backup is written (default: backups/ beside DATABASE_PATH)',
    BACKUP_KEEP: true,
    DATABASE_URL: SQLITE_ONLY,
  },
});

export const restoreCommand = defineCommand({
  name: 'restore',
  summary:
    "Replaces the SQLite database with a backup, a SQLite file or the replica's state, after checking it, and applies pending migrations; stop the server first.",
  options: {
    'from-replica': {
      type: 'boolean',
      meaning: 'restore from the Litestream replica of REPLICA_URL instead of a FILE',
    },
    timestamp: {
      type: 'string',
      value: 'TIME',
      meaning:
        'with --from-replica: the state at this instant (RFC 3339, e.g. 2026-11-22T03:00:00Z) within REPLICA_RETENTION; default the latest',
      accepts: {
        what: 'an RFC 3339 time such as 2026-11-22T03:00:00Z',
        test: (value) =>
          /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
          !Number.isNaN(Date.parse(value)),
      },
    },
  },
  operands: { '[FILE]': 'a backup (.db.gz) or a SQLite database of this service' },
  variables: {
    DATABASE_PATH: 'the database replaced (the old one is kept as <DATABASE_PATH>.before-restore)',
    BACKUP_DIR: 'where a backup is written before migrations are applied',
    REPLICA_URL: 'with --from-replica: the replica restored from (and its REPLICA_* companions)',
    DATABASE_URL: SQLITE_ONLY,
  },
});

export const demoCommand = defineCommand({
  name: 'demo',
  summary:
    'Fills the database with a small demo data set (once), prints the demo accounts, a 24 h token for each and curl commands to try.',
  options: {
    reset: {
      type: 'boolean',
      meaning:
        'delete the SQLite file first: everything in it, not only the demo (refused with DATABASE_URL)',
    },
  },
  variables: {
    ...DATABASE,
    JWT_SECRET: true,
    PORT: 'the port in the printed curl commands (default 3000)',
    PUBLIC_ORIGIN: 'the address in the printed curl commands, when set',
    TLS_CERT_PATH: 'set: the printed curl commands use https',
  },
});

export const seedCommand = defineCommand({
  name: 'seed',
  summary:
    'Loads generated properties with their units (reproducible from --seed) and the example pages into the SQLite database, for load tests.',
  options: {
    properties: {
      type: 'string',
      value: 'N',
      meaning: 'how many properties (default 1000)',
      accepts: COUNT,
    },
    'units-per-property': {
      type: 'string',
      value: 'K|MIN-MAX',
      meaning: `units per property, or a range drawn uniformly (1 to ${MAX_UNITS}; default 5)`,
      accepts: {
        what: `a number of units from 1 to ${MAX_UNITS}, or a range such as 1-30`,
        test: (value: string) => unitRangeOf(value) !== undefined,
      },
    },
    batch: {
      type: 'string',
      value: 'N',
      meaning: 'properties per transaction (default 20000)',
      accepts: { what: 'a whole number from 1', test: (value: string) => /^[1-9]\d*$/.test(value) },
    },
    seed: { type: 'string', value: 'N', meaning: 'the generator seed (default 1)', accepts: COUNT },
  },
  variables: { DATABASE_PATH: 'the SQLite database written (PostgreSQL is not seeded)' },
  notes: ['Ctrl-C stops after the current batch; what was committed stays.'],
});

export const pagesImportCommand = defineCommand({
  name: 'pages:import',
  summary: 'Creates or replaces the static pages of every *.json and *.md file directly in DIR.',
  options: {},
  operands: { DIR: 'the folder of page files' },
  variables: DATABASE,
  notes: [
    'A refused file is named on stderr and makes the exit status 1; the others are imported.',
  ],
});

export const migrateToPostgresCommand = defineCommand({
  name: 'migrate-to-postgres',
  summary:
    'Copies a SQLite database into an empty PostgreSQL database in one transaction and compares the rows of every table.',
  usage: '[--from SQLITE_FILE] [--to postgres://…]',
  options: {
    from: {
      type: 'string',
      value: 'SQLITE_FILE',
      meaning: 'the SQLite file (default DATABASE_PATH)',
    },
    to: { type: 'string', value: 'URL', meaning: 'the PostgreSQL database (default DATABASE_URL)' },
  },
  variables: {
    DATABASE_PATH: 'the SQLite file copied when --from is not given',
    DATABASE_URL: 'the PostgreSQL database written when --to is not given',
  },
  notes: ['When any table differs, nothing is kept and the exit status is 1.'],
});

export const mailTestCommand = defineCommand({
  name: 'mail:test',
  summary:
    "Sends one test message through the configured SMTP server at once (not through the outbox) and prints the server's answer.",
  options: {
    to: {
      type: 'string',
      value: 'EMAIL',
      meaning: 'where the message goes',
      required: true,
      accepts: EMAIL,
    },
    language: {
      type: 'string',
      choices: MAIL_LANGUAGES,
      meaning: 'the language of the message (default en)',
    },
  },
  variables: {
    SMTP_HOST: true,
    SMTP_PORT: true,
    SMTP_TLS: true,
    SMTP_USER: true,
    SMTP_PASSWORD: true,
    SMTP_PASSWORD_FILE: true,
    SMTP_TLS_CA_FILE: true,
    MAIL_FROM: true,
  },
  notes: [
    'A refusal or a connection that fails prints the reason on stderr (exit 1); without SMTP_HOST nothing is sent (exit 1).',
  ],
});

export const buildCommand = defineCommand({
  name: 'build',
  summary:
    'Builds dist/listings-service: the whole service (runtime, code, migrations, pages) as one executable.',
  options: {},
  variables: {},
});

export const OPERATOR_COMMANDS = [
  userCreateCommand,
  userPasswordCommand,
  userDisableCommand,
  userVerifyCommand,
  tokenCommand,
  backupCommand,
  restoreCommand,
  demoCommand,
  seedCommand,
  pagesImportCommand,
  migrateToPostgresCommand,
  mailTestCommand,
  buildCommand,
];
