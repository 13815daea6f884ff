import { boolean, index, integer, json, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { CREDENTIAL_DEVICE_TYPES, EMAIL_LINK_PURPOSES } from '../../stored-values';
import { bytea, epochMs, epochMsNumber, serialKey } from './columns';
import { users } from './users';

/** Browser sessions (see src/db/sqlite/schema/accounts.ts for what each column means). */
export const sessions = pgTable(
  'sessions',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: epochMs().notNull(),
    expiresAt: epochMs().notNull(),
    lastSeenAt: epochMs(),
    ip: text(),
    userAgent: text(),
  },
  (table) => [
    index('sessions_user_id_idx').on(table.userId),
    index('sessions_expires_at_idx').on(table.expiresAt),
  ],
);

export const passkeys = pgTable(
  'passkeys',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    credentialId: text().notNull(),
    publicKey: bytea().notNull(),
    counter: integer().notNull(),
    transports: json().$type<string[]>().notNull(),
    deviceType: text({ enum: CREDENTIAL_DEVICE_TYPES }).notNull(),
    backedUp: boolean().notNull(),
    name: text().notNull(),
    createdAt: epochMs().notNull(),
    lastUsedAt: epochMs(),
    aaguid: text().notNull().default('00000000-0000-0000-0000-000000000000'),
    provider: text().notNull().default('Passkey'),
  },
  (table) => [
    uniqueIndex('passkeys_credential_id_unique').on(table.credentialId),
    index('passkeys_user_id_idx').on(table.userId),
  ],
);

export const webauthnChallenges = pgTable(
  'webauthn_challenges',
  {
    id: text().primaryKey(),
    challenge: text().notNull(),
    kind: text({ enum: ['registration', 'authentication'] }).notNull(),
    userId: text().references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: epochMs().notNull(),
  },
  (table) => [
    uniqueIndex('webauthn_challenges_challenge_unique').on(table.challenge),
    index('webauthn_challenges_expires_at_idx').on(table.expiresAt),
    // A passkey verification reads its account's used challenges (at most 60) by this.
    index('webauthn_challenges_user_id_idx').on(table.userId, table.expiresAt),
  ],
);

export const authFailures = pgTable(
  'auth_failures',
  {
    id: serialKey(),
    key: text().notNull(),
    at: epochMsNumber().notNull(),
  },
  (table) => [
    index('auth_failures_key_at_idx').on(table.key, table.at),
    index('auth_failures_at_idx').on(table.at),
  ],
);

/** Password reset links (see src/db/sqlite/schema/accounts.ts). */
export const passwordResets = pgTable(
  'password_resets',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: epochMs().notNull(),
    expiresAt: epochMs().notNull(),
  },
  (table) => [
    index('password_resets_user_id_idx').on(table.userId),
    index('password_resets_expires_at_idx').on(table.expiresAt),
  ],
);

/** Email links (see src/db/sqlite/schema/accounts.ts). */
export const emailLinks = pgTable(
  'email_links',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text({ enum: EMAIL_LINK_PURPOSES }).notNull(),
    email: text().notNull(),
    createdAt: epochMs().notNull(),
    expiresAt: epochMs().notNull(),
  },
  (table) => [
    index('email_links_user_id_idx').on(table.userId),
    index('email_links_expires_at_idx').on(table.expiresAt),
  ],
);
