import { cursorOf } from '@/events/cursor';
import type { Logger } from '@/logger';
import { postToVetted } from './connect';
import { signingSecrets } from './endpoints';
import { webhookHeaders } from './signing';
import type { AttemptOutcome, DueDelivery } from './store';
import { type Resolve, type UrlPolicy, vetTarget } from './url-policy';

/** An attempt, lookup and connection included, that has no answer after this long failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** What one attempt needs besides the delivery: the address policy, its bounds, its log. */
export interface AttemptOptions {
  policy: UrlPolicy;
  /** Gets the detailed cause of each failed attempt; the owner sees only a generic reason. */
  logger?: Logger;
  resolve?: Resolve;
  timeoutMs?: number;
  /** PEM of the CAs trusted for receivers' certificates instead of the system's (tests). */
  trustedCa?: string;
}

const TLS_FAILURE =
  /CERT|SSL|TLS|ALTNAME|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|HANDSHAKE|PROTOCOL_VERSION/i;

/**
 * What the owner reads of a failure that got no answer: a reason from a
 * short closed list, never the error's own text (it would tell internal
 * details, and which addresses and ports answer how).
 */
function reasonOf(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TLS_FAILURE.test(code)) return 'certificate not accepted';
  return 'connection failed';
}

export const messageOf = (error: unknown) =>
  error instanceof Error ? error.message : String(error);

/**
 * One POST, bounded as a whole by the timeout: one lookup of the host,
 * every address vetted (`vetTarget`), then the request to the vetted
 * address (`postToVetted`); no redirect followed (a 3xx is a failure), the
 * answer's body not read. A refused address reads the same whatever lies
 * behind it: no request, no duration, no status.
 */
export async function attempt(
  ctx: AttemptOptions,
  { delivery, endpoint, body }: DueDelivery,
  now: number,
): Promise<AttemptOutcome> {
  const timeoutMs = ctx.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const log = (cause: string) =>
    ctx.logger?.warn('webhook attempt failed', {
      endpoint: endpoint.id,
      delivery: delivery.id,
      cause,
    });
  const vetting = await vetTarget(endpoint.url, ctx.policy, { resolve: ctx.resolve, signal });
  if (!vetting.ok) {
    log(`refused: ${vetting.detail}`);
    return { ok: false, responseStatus: null, durationMs: 0, error: `refused: ${vetting.reason}` };
  }
  const headers = webhookHeaders(
    signingSecrets(endpoint, now),
    cursorOf(delivery.eventId),
    now,
    body,
  );
  try {
    const response = await postToVetted(vetting.target, {
      headers,
      body,
      signal,
      trustedCa: ctx.trustedCa,
    });
    await response.body?.cancel();
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      responseStatus: response.status,
      durationMs: elapsed(),
      error: ok ? null : `answered ${response.status}`,
    };
  } catch (error) {
    log(`${vetting.target.address}: ${messageOf(error)}`);
    return {
      ok: false,
      responseStatus: null,
      durationMs: elapsed(),
      error: reasonOf(error, timeoutMs),
    };
  }
}
