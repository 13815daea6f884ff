import { defineConfig } from 'drizzle-kit';

// The PostgreSQL twin of drizzle.config.ts: `bun run db:generate:pg`.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/pg/schema/index.ts',
  out: './migrations-pg',
  casing: 'snake_case',
});
