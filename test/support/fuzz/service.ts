/**
 * The fuzzer against the whole service in-process (the harness's `fetch`,
 * the same pipeline Bun.serve calls): real users to act as, limits raised so
 * quota does not hide the routes behind 429s, and many client addresses.
 */
import { insertUser } from '@/accounts/users';
import { createTestApp } from '../harness';
import { forgeAuthorizations } from './credentials';
import { seedFromEnv } from './generate';
import { type Credential, type FuzzOptions, type FuzzReport, formatReport, runFuzz } from './run';

const PASSWORD = 'fuzz-password-1';

export interface FuzzServiceOptions
  extends Partial<
    Pick<FuzzOptions, 'concurrency' | 'timeoutMs' | 'minPerOperation' | 'warmUpRequests' | 'strict'>
  > {
  requests: number;
}

export async function fuzzService({
  requests,
  ...rest
}: FuzzServiceOptions): Promise<{ report: FuzzReport; text: string }> {
  const ctx = createTestApp({
    env: {
      TRUST_PROXY: 'true',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
      RATE_LIMIT_CUSTOMER_PER_MINUTE: '1000000',
      RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
      RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '1000000',
      WORKERS: 'off',
    },
  });
  const users = [
    { email: 'fuzz-employee@example.com', role: 'employee' as const },
    { email: 'fuzz-customer-1@example.com', role: 'customer' as const },
    { email: 'fuzz-customer-2@example.com', role: 'customer' as const },
  ];
  const credentials: Credential[] = [];
  for (const user of users) {
    const created = await insertUser(ctx.deps.stores.accounts, {
      email: user.email,
      password: PASSWORD,
      role: user.role,
    });
    if (!created) throw new Error(`${user.email} is taken in a fresh database`);
    const { id } = created;
    credentials.push({
      sub: id,
      aud: user.role,
      token: await ctx.tokenFor(id, user.role, 24 * 3600),
    });
  }
  const seed = seedFromEnv();
  const report = await runFuzz({
    fetch: ctx.fetch,
    requests,
    seed,
    credentials,
    forgedAuthorizations: forgeAuthorizations({
      valid: credentials[0]!.token,
      secret: ctx.config.jwtSecret,
      nowSeconds: Math.floor(ctx.clock() / 1000),
    }),
    secrets: [ctx.config.jwtSecret],
    seeds: { email: users.map((u) => u.email), password: [PASSWORD] },
    spreadClientAddresses: true,
    origin: ctx.config.publicOrigins[0],
    only: process.env.FUZZ_ONLY ? new RegExp(process.env.FUZZ_ONLY) : undefined,
    ...rest,
  });
  return { report, text: formatReport(report) };
}
