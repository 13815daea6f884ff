import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/sqlite/schema/index.ts',
  out: './migrations',
  casing: 'snake_case',
});
