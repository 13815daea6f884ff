import { AUDIENCES, type Audience, parseDuration, TokenService } from '@/auth/tokens';
import { cli, fail } from './cli';

const usage = 'usage: bun run token -- --sub ID --aud customer|employee [--ttl 1h]';
const { values, config } = cli(usage, {
  sub: { type: 'string' },
  aud: { type: 'string' },
  ttl: { type: 'string' },
});

if (!values.sub) fail(usage);
if (!(AUDIENCES as readonly string[]).includes(values.aud ?? '')) fail(usage);
const ttl = parseDuration(values.ttl ?? '1h') ?? fail(`bad --ttl "${values.ttl}"\n${usage}`);
console.log(
  await new TokenService(config.jwtSecret).issue(values.sub, values.aud as Audience, ttl),
);
