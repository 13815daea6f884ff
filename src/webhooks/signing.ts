import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks libraries read it. */
export const newSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under one secret. */
function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-timestamp` in Unix
 * seconds and one signature per live secret, space-separated (a receiver
 * accepts the delivery when any of them verifies).
 */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  now: number,
  body: string,
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'listings-service-webhooks',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets
      .map((secret) => signatureOf(secret, id, timestamp, body))
      .join(' '),
  };
}
