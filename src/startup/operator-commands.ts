/**
 * How this installation runs the operator commands (`user:create`, `demo`),
 * as a printed hint must write them: `npm run` from a checkout (the
 * default), `bun run` in the image, where there is no npm (its Dockerfile
 * sets LISTINGS_COMMAND_PREFIX); the single binary carries none of them.
 */
export type OperatorCommands = { kind: 'prefix'; prefix: string } | { kind: 'none' };

/** The start-up line of a database with no account: how to make the first one. */
export function firstAccountHint(commands: OperatorCommands): string {
  const createUser = 'user:create -- --email you@example.com --role employee';
  if (commands.kind === 'none') {
    return `no account yet: this binary has no operator commands; create the first employee from a checkout with \`npm run ${createUser}\` and the same DATABASE_PATH (docs/operations.md, The binary)`;
  }
  const { prefix } = commands;
  return `no account yet: create the first employee with \`${prefix} ${createUser}\`, or fill the database with demo data: \`${prefix} demo\``;
}
