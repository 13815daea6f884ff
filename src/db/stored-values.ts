/**
 * The closed lists of values the tables store, shared by both databases'
 * tables (src/db/schema) and by the API's schemas.
 */

/** The kinds of property and where a property came from; both databases' tables and the API use these. */
export const PROPERTY_TYPES = ['apartment', 'studio', 'roomShared', 'residence'] as const;
export const PROPERTY_SOURCES = ['inbound', 'outbound', 'null'] as const;

/** How a passkey is held: on one device or synced between several. */
export const CREDENTIAL_DEVICE_TYPES = ['singleDevice', 'multiDevice'] as const;

/** What an email link is for: verifying a sign-up's address, or confirming a new one. */
export const EMAIL_LINK_PURPOSES = ['verify', 'change'] as const;

/**
 * What an audit event says happened. Account events concern one user (the
 * subject) and show in that user's security log; employee events concern
 * whatever they changed (the target) and show in the operators' audit log.
 */
export const AUDIT_ACTIONS = [
  'sign_in.succeeded',
  'sign_in.failed',
  'sign_in.refused',
  'sign_out',
  'sign_up',
  'account.created',
  'passkey.added',
  'passkey.renamed',
  'passkey.deleted',
  'session.revoked',
  'sessions.ended_all',
  'password.changed',
  'password_reset.requested',
  'password.reset',
  'email_verification.sent',
  'email.verified',
  'email_change.requested',
  'email.changed',
  'account.role_changed',
  'account.disabled',
  'account.enabled',
  'account.password_set',
  'account.deleted',
  'plan.created',
  'plan.changed',
  'plan.deleted',
  'customer_plan.set',
  'employee_limit.set',
  'property.owner_changed',
  'static_page.written',
  'static_page.deleted',
  'job.run',
  'backup.created',
  'webhook.disabled',
  'replication.degraded',
  'replication.recovered',
  'mail.failed',
  'notification.queued',
  'notification.dropped',
  'disk.low',
  'disk.full',
  'disk.recovered',
  'backup.skipped',
] as const;
