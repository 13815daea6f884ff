import type { EventType } from './types.js';

/** A delivery's body once verified. */
export interface WebhookPayload {
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** Seconds a `webhook-timestamp` may be away from `now` (default 300). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch (default `Date.now()`). */
  now?: number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function headerOf(headers: HeaderSource, name: string): string {
  const value =
    headers instanceof Headers
      ? headers.get(name)
      : (headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]);
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) throw new WebhookVerificationError(`missing ${name} header`);
  return text;
}

const base64ToBytes = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const bytesToBase64 = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

/** Compares without stopping at the first difference. */
function sameText(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  }
  return difference === 0;
}

/**
 * Checks a delivery the way Standard Webhooks receivers do: the HMAC-SHA256
 * of `webhook-id.webhook-timestamp.body` under `secret` (`whsec_…`) must be
 * one of the `v1,` signatures, and the timestamp within the tolerance.
 * `payload` is the raw body text, exactly as received. Answers the parsed
 * body; throws `WebhookVerificationError` otherwise. Uses Web Crypto only.
 */
export async function verifyWebhook(
  payload: string,
  headers: HeaderSource,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookPayload> {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  const seconds = Number(timestamp);
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('bad webhook-timestamp');
  const now = (options.now ?? Date.now()) / 1000;
  if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('webhook-timestamp outside the tolerance');
  }
  const key = await crypto.subtle.importKey(
    'raw',
    base64ToBytes(secret.replace(/^whsec_/, '')),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await crypto.subtle.sign(
    'HMAC',
    key,
    new TextEncoder().encode(`${id}.${timestamp}.${payload}`),
  );
  const expected = bytesToBase64(mac);
  const matches = signatures
    .split(' ')
    .some((signature) => signature.startsWith('v1,') && sameText(signature.slice(3), expected));
  if (!matches) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(payload) as WebhookPayload;
}
