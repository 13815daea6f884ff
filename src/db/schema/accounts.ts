import { CREDENTIAL_DEVICE_TYPES, EMAIL_LINK_PURPOSES } from '../stored-values';
import { boolean, bytes, epochMs, epochMsNumber, integer, json, serialKey, text } from './columns';
import { index, table, uniqueIndex } from './table';
import { users } from './users';

/**
 * Browser sessions, 7 days from sign-in. The cookie carries a random token; only its
 * SHA-256 is stored, so a copy of the database cannot be replayed as cookies.
 */
export const sessions = table(
  'sessions',
  {
    /** SHA-256 (hex) of the cookie value. */
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.columns.id, { onDelete: 'cascade' }),
    createdAt: epochMs().notNull(),
    expiresAt: epochMs().notNull(),
    /** Last request made with the session, to within a few minutes (null: none since sign-in). */
    lastSeenAt: epochMs(),
    /** Where the sign-in came from, as the account's session list shows it. */
    ip: text(),
    userAgent: text(),
  },
  (t) => [
    index('sessions_user_id_idx').on(t.userId),
    index('sessions_expires_at_idx').on(t.expiresAt),
  ],
);

/** WebAuthn credentials (discoverable, attestation "none"). */
export const passkeys = table(
  'passkeys',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.columns.id, { onDelete: 'cascade' }),
    /** The credential id as the authenticator reports it (base64url). */
    credentialId: text().notNull(),
    /** COSE_Key of the credential. */
    publicKey: bytes().notNull(),
    counter: integer().notNull(),
    transports: json<string[]>().notNull(),
    deviceType: text({ enum: CREDENTIAL_DEVICE_TYPES }).notNull(),
    backedUp: boolean().notNull(),
    name: text().notNull(),
    createdAt: epochMs().notNull(),
    lastUsedAt: epochMs(),
    /** The authenticator's AAGUID as it reported it at registration (all zeros: not said). */
    aaguid: text().notNull().default('00000000-0000-0000-0000-000000000000'),
    /** The provider named by the AAGUID at registration ("Passkey" when unknown). */
    provider: text().notNull().default('Passkey'),
  },
  (t) => [
    uniqueIndex('passkeys_credential_id_unique').on(t.credentialId),
    index('passkeys_user_id_idx').on(t.userId),
  ],
);

/**
 * Used WebAuthn challenges. Challenges are issued stateless (signed, with
 * their expiry) and recorded here only when a verification uses one, until
 * they expire, so a second use is refused (src/accounts/challenges.ts).
 */
export const webauthnChallenges = table(
  'webauthn_challenges',
  {
    id: text().primaryKey(),
    /** base64url, as sent in the options and echoed in clientDataJSON. */
    challenge: text().notNull(),
    kind: text({ enum: ['registration', 'authentication'] }).notNull(),
    userId: text().references(() => users.columns.id, { onDelete: 'cascade' }),
    expiresAt: epochMs().notNull(),
  },
  (t) => [
    uniqueIndex('webauthn_challenges_challenge_unique').on(t.challenge),
    index('webauthn_challenges_expires_at_idx').on(t.expiresAt),
    // A passkey verification reads its account's used challenges (at most 60) by this.
    index('webauthn_challenges_user_id_idx').on(t.userId, t.expiresAt),
  ],
);

/** Failed sign-ins and passkey verifications, per account and per IP (guessing protection). */
export const authFailures = table(
  'auth_failures',
  {
    id: serialKey({ neverReused: true }),
    /** `account:<address> <email>` or `ip:<address>`. */
    key: text().notNull(),
    at: epochMsNumber().notNull(),
  },
  (t) => [
    index('auth_failures_key_at_idx').on(t.key, t.at),
    index('auth_failures_at_idx').on(t.at),
  ],
);

/**
 * Password reset links not yet used (docs/accounts.md#password-reset). The
 * link carries a random token; only its SHA-256 is stored, so a copy of the
 * database holds no usable link. A use deletes every one of the account's.
 */
export const passwordResets = table(
  'password_resets',
  {
    /** SHA-256 (hex) of the token in the link. */
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.columns.id, { onDelete: 'cascade' }),
    createdAt: epochMs().notNull(),
    expiresAt: epochMs().notNull(),
  },
  (t) => [
    index('password_resets_user_id_idx').on(t.userId),
    index('password_resets_expires_at_idx').on(t.expiresAt),
  ],
);

/**
 * Email links not yet followed (docs/accounts.md#email-verification): a
 * sign-up's verification of its address, or the confirmation of a new
 * address from that address. Like a reset link, only the token's SHA-256 is
 * stored; an account has at most one link of each purpose.
 */
export const emailLinks = table(
  'email_links',
  {
    /** SHA-256 (hex) of the token in the link. */
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.columns.id, { onDelete: 'cascade' }),
    purpose: text({ enum: EMAIL_LINK_PURPOSES }).notNull(),
    /** The address the link was sent to, which following it confirms (normalized). */
    email: text().notNull(),
    createdAt: epochMs().notNull(),
    expiresAt: epochMs().notNull(),
  },
  (t) => [
    index('email_links_user_id_idx').on(t.userId),
    index('email_links_expires_at_idx').on(t.expiresAt),
  ],
);
