import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { CREDENTIAL_DEVICE_TYPES, EMAIL_LINK_PURPOSES } from '../../stored-values';
import { users } from './users';

/**
 * Browser sessions, 7 days from sign-in. The cookie carries a random token; only its
 * SHA-256 is stored, so a copy of the database cannot be replayed as cookies.
 */
export const sessions = sqliteTable(
  'sessions',
  {
    /** SHA-256 (hex) of the cookie value. */
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer({ mode: 'timestamp_ms' }).notNull(),
    /** Last request made with the session, to within a few minutes (null: none since sign-in). */
    lastSeenAt: integer({ mode: 'timestamp_ms' }),
    /** Where the sign-in came from, as the account's session list shows it. */
    ip: text(),
    userAgent: text(),
  },
  (table) => [
    index('sessions_user_id_idx').on(table.userId),
    index('sessions_expires_at_idx').on(table.expiresAt),
  ],
);

/** WebAuthn credentials (discoverable, attestation "none"). */
export const passkeys = sqliteTable(
  'passkeys',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The credential id as the authenticator reports it (base64url). */
    credentialId: text().notNull(),
    /** COSE_Key of the credential. */
    publicKey: blob({ mode: 'buffer' }).notNull(),
    counter: integer().notNull(),
    transports: text({ mode: 'json' }).$type<string[]>().notNull(),
    deviceType: text({ enum: CREDENTIAL_DEVICE_TYPES }).notNull(),
    backedUp: integer({ mode: 'boolean' }).notNull(),
    name: text().notNull(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    lastUsedAt: integer({ mode: 'timestamp_ms' }),
    /** The authenticator's AAGUID as it reported it at registration (all zeros: not said). */
    aaguid: text().notNull().default('00000000-0000-0000-0000-000000000000'),
    /** The provider named by the AAGUID at registration ("Passkey" when unknown). */
    provider: text().notNull().default('Passkey'),
  },
  (table) => [
    uniqueIndex('passkeys_credential_id_unique').on(table.credentialId),
    index('passkeys_user_id_idx').on(table.userId),
  ],
);

/**
 * Used WebAuthn challenges. Challenges are issued stateless (signed, with
 * their expiry) and recorded here only when a verification uses one, until
 * they expire, so a second use is refused (src/accounts/challenges.ts).
 */
export const webauthnChallenges = sqliteTable(
  'webauthn_challenges',
  {
    id: text().primaryKey(),
    /** base64url, as sent in the options and echoed in clientDataJSON. */
    challenge: text().notNull(),
    kind: text({ enum: ['registration', 'authentication'] }).notNull(),
    userId: text().references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [
    uniqueIndex('webauthn_challenges_challenge_unique').on(table.challenge),
    index('webauthn_challenges_expires_at_idx').on(table.expiresAt),
    // A passkey verification reads its account's used challenges (at most 60) by this.
    index('webauthn_challenges_user_id_idx').on(table.userId, table.expiresAt),
  ],
);

/** Failed sign-ins and passkey verifications, per account and per IP (guessing protection). */
export const authFailures = sqliteTable(
  'auth_failures',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** `account:<address> <email>` or `ip:<address>`. */
    key: text().notNull(),
    at: integer().notNull(),
  },
  (table) => [
    index('auth_failures_key_at_idx').on(table.key, table.at),
    index('auth_failures_at_idx').on(table.at),
  ],
);

export type Session = typeof sessions.$inferSelect;
export type Passkey = typeof passkeys.$inferSelect;
export type WebauthnChallenge = typeof webauthnChallenges.$inferSelect;

/**
 * Password reset links not yet used (docs/accounts.md#password-reset). The
 * link carries a random token; only its SHA-256 is stored, so a copy of the
 * database holds no usable link. A use deletes every one of the account's.
 */
export const passwordResets = sqliteTable(
  'password_resets',
  {
    /** SHA-256 (hex) of the token in the link. */
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [
    index('password_resets_user_id_idx').on(table.userId),
    index('password_resets_expires_at_idx').on(table.expiresAt),
  ],
);

export type PasswordReset = typeof passwordResets.$inferSelect;

/**
 * Email links not yet followed (docs/accounts.md#email-verification): a
 * sign-up's verification of its address, or the confirmation of a new
 * address from that address. Like a reset link, only the token's SHA-256 is
 * stored; an account has at most one link of each purpose.
 */
export const emailLinks = sqliteTable(
  'email_links',
  {
    /** SHA-256 (hex) of the token in the link. */
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text({ enum: EMAIL_LINK_PURPOSES }).notNull(),
    /** The address the link was sent to, which following it confirms (normalized). */
    email: text().notNull(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [
    index('email_links_user_id_idx').on(table.userId),
    index('email_links_expires_at_idx').on(table.expiresAt),
  ],
);

export type EmailLink = typeof emailLinks.$inferSelect;
