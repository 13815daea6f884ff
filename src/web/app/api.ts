/** The account page's calls to /auth and the sentences it shows for failures. */
import {
  REAUTHENTICATION_DETAIL,
  SIGN_UP_CLOSED_DETAIL,
  UNKNOWN_CREDENTIAL_DETAIL,
} from '../../accounts/messages';

export interface User {
  id: string;
  email: string;
  role: string;
  emailVerified: boolean;
}

export interface Passkey {
  id: string;
  credentialId: string;
  name: string;
  provider: string;
  aaguid: string;
  createdAt: string;
  lastUsedAt: string | null;
  backedUp: boolean;
  deviceType: 'singleDevice' | 'multiDevice';
  transports: string[];
}

export type Action =
  | 'load'
  | 'sign-in'
  | 'sign-up'
  | 'passkey-sign-in'
  | 'add-passkey'
  | 'rename'
  | 'delete'
  | 'sign-out'
  | 'sign-out-elsewhere'
  | 'sign-out-everywhere'
  | 'change-password'
  | 'request-reset'
  | 'reset-password'
  | 'resend-verification'
  | 'change-email'
  | 'confirm-email';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterSeconds: number | null,
    /** The problem body's `detail`, when the server sent one. */
    readonly detail: string | null = null,
  ) {
    super(`HTTP ${status}`);
  }
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, null);
  }
  if (!response.ok) {
    const retryAfter = Number(response.headers.get('retry-after'));
    const problem: unknown = await response.json().catch(() => null);
    const detail =
      problem !== null && typeof problem === 'object' && 'detail' in problem
        ? String(problem.detail)
        : null;
    throw new ApiError(response.status, Number.isFinite(retryAfter) ? retryAfter : null, detail);
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}

function waitText(seconds: number | null): string {
  if (seconds === null || seconds <= 60) return 'a minute';
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

const webAuthnMessages: Record<string, string> = {
  NotAllowedError:
    'The passkey request was cancelled or timed out, or no passkey for this site was found on this device.',
  InvalidStateError: 'This device already holds a passkey for your account.',
  SecurityError:
    "Passkeys can't be used at this address. Open the page at the site's secure (https) address.",
  NotSupportedError: "This device doesn't support the kind of passkey this site needs.",
};

const apiMessages: Partial<Record<Action, Record<number, string>>> = {
  'sign-in': { 401: "That email and password don't match. Check them and try again." },
  'sign-up': {
    // Sign-up answers alike for a free or taken email: the sign-in that follows fails.
    409: 'This email and password do not sign in. If you already have an account, sign in with its password.',
    422: 'Enter a valid email address and a password of at least 8 characters.',
  },
  'passkey-sign-in': {
    401: "That passkey couldn't be verified. Try again, or sign in with your password.",
  },
  'add-passkey': {
    400: "The new passkey couldn't be verified. Please try again.",
    409: 'This passkey is already registered.',
    422: 'Passkey names can be at most 64 characters.',
  },
  rename: {
    404: 'That passkey no longer exists.',
    422: 'Give the passkey a name of 1 to 64 characters.',
  },
  delete: { 404: 'That passkey no longer exists.' },
  'sign-out-elsewhere': { 404: 'That browser is already signed out.' },
  'change-password': {
    401: "That isn't your current password. Check it and try again.",
    422: 'Choose a new password of at least 8 characters.',
  },
  'request-reset': { 422: 'Enter a valid email address.' },
  'reset-password': {
    400: 'This reset link is invalid, already used or expired. Ask for a new one below.',
    422: 'Choose a new password of at least 8 characters.',
  },
  'resend-verification': { 409: 'Your email address is verified already.' },
  'change-email': {
    401: "That password doesn't match. Check it and try again.",
    422: 'Enter a valid email address other than your current one.',
  },
  'confirm-email': {
    400: 'This email link is invalid, already used or expired. Sign in to ask for a new one.',
    409: 'That address now belongs to another account: your address was not changed.',
  },
};

/** Turns any failure into a sentence for the person at the keyboard. */
export function describe(error: unknown, action: Action): string {
  if (error instanceof ApiError) {
    // The server's own sentences for these refusals are written for people.
    const sentences = [SIGN_UP_CLOSED_DETAIL, REAUTHENTICATION_DETAIL, UNKNOWN_CREDENTIAL_DETAIL];
    if (error.detail !== null && sentences.includes(error.detail)) return error.detail;
    const specific = apiMessages[action]?.[error.status];
    if (specific) return specific;
    switch (error.status) {
      case 0:
        return "The server couldn't be reached. Check your connection and try again.";
      case 401:
        return 'Your session has ended. Please sign in again.';
      case 403:
        return 'The server refused this request. Passkeys need a secure (https) connection.';
      case 429:
        return `Too many attempts. Please wait ${waitText(error.retryAfterSeconds)} and try again.`;
      case 503:
        return 'The server is busy. Please try again in a moment.';
      default:
        return error.status >= 500
          ? 'Something went wrong on our side. Please try again in a moment.'
          : 'That request could not be completed. Please try again.';
    }
  }
  if (error instanceof Error && error.name in webAuthnMessages) {
    return webAuthnMessages[error.name]!;
  }
  return 'Something unexpected went wrong. Please try again.';
}

/** A 401 right after sign-up means the email already had an account (another password). */
export async function signInAfterSignUp(credentials: { email: string; password: string }) {
  try {
    return await api<{ user: User }>('POST', '/auth/sign-in', credentials);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw new ApiError(409, error.retryAfterSeconds, error.detail);
    }
    throw error;
  }
}
