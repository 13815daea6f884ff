import { EnvSchema } from '@/config';
import packageJson from '../../package.json' with { type: 'json' };

/** What the server's command line asks for: to serve, or only to print something and exit. */
export type Invocation =
  | { kind: 'serve' }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'unknown'; argument: string };

/** The arguments after the script (`bun src/index.ts …`, `npm start -- …`, `./listings-service …`). */
export function invocationOf(args: readonly string[]): Invocation {
  const [first] = args;
  if (first === undefined) return { kind: 'serve' };
  if (args.length === 1 && (first === '--help' || first === '-h')) return { kind: 'help' };
  if (args.length === 1 && (first === '--version' || first === '-v')) return { kind: 'version' };
  return {
    kind: 'unknown',
    argument: args.find((arg) => !['--help', '-h', '--version', '-v'].includes(arg)) ?? first,
  };
}

export const version: string = packageJson.version;

/** The main variables, each with what it means; its default is read from the schema. */
const MAIN_VARIABLES = [
  ['PORT', 'the port to listen on'],
  ['HOST', 'the address to listen on (127.0.0.1: this machine only)'],
  ['DATABASE_PATH', 'the SQLite file; its folder must be writable'],
  ['DATABASE_URL', 'serve from PostgreSQL instead (postgres://…; needs JWT_SECRET)'],
  ['JWT_SECRET', 'signs tokens; unset: generated once beside the database'],
  ['PUBLIC_ORIGIN', 'the address browsers use, e.g. https://listings.example.com'],
  ['REDIS_URL', 'the Redis several instances share (redis://…)'],
  ['WORKERS', 'run the background jobs in this process (on or off)'],
  ['LOG_LEVEL', 'debug, info, warn, error or silent'],
] as const satisfies readonly (readonly [keyof typeof EnvSchema.shape, string])[];

function defaultOf(name: keyof typeof EnvSchema.shape): string {
  const parsed = EnvSchema.shape[name].safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return '';
  return `=${typeof parsed.data === 'boolean' ? (parsed.data ? 'on' : 'off') : String(parsed.data)}`;
}

/** `--help`: what the server is, how to start and stop it, its main variables, where the docs are. */
export function helpText(): string {
  const settings = MAIN_VARIABLES.map(([name, meaning]) => {
    const setting = `${name}${defaultOf(name)}`;
    return `  ${setting.padEnd(28)} ${meaning}`;
  });
  return [
    `listings-service ${version}: ${packageJson.description}`,
    '',
    'Start it:',
    '  npm start                    from a checkout (installs what is missing first)',
    '  docker run -p 3000:3000 -v listings-data:/data listings-service',
    '  ./dist/listings-service      the single binary (npm run build)',
    'Stop it with SIGTERM or Ctrl-C: requests in flight are answered, then it exits 0.',
    '',
    'Settings come from the environment (every one is optional; .env.example lists them all):',
    ...settings,
    '',
    'Docs: /docs on the running server (the API reference, Swagger UI);',
    '      docs/ in the checkout (docs/operations.md: running, backups, upgrades).',
    '',
    'Options: --help (this text), --version (the version). Anything else: exit 2.',
  ].join('\n');
}
