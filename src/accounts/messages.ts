/**
 * Sentences the account routes answer with, shared with the account page
 * (src/web), which shows or recognises them. Plain strings: the page's
 * bundle imports this file, so it imports nothing.
 */

/** The `detail` of 403 `sign_up.closed`. */
export const SIGN_UP_CLOSED_DETAIL =
  'Sign-up is closed on this service. Ask an administrator to create your account.';

/** The `message` of every 202 sign-up answer, whether or not the email was free. */
export const SIGN_UP_ACCEPTED_MESSAGE =
  'If this email was not registered yet, its account has been created: sign in with this email and password.';

/** The `detail` of 403 `account.unverified`. */
export const UNVERIFIED_DETAIL =
  'Verify your email address first: follow the link we sent you, or ask for a new one on your account page.';

/** The `detail` of 409 `email.already_verified`. */
export const ALREADY_VERIFIED_DETAIL = "This account's email address is verified already.";

/** The `message` of every 202 sign-up answer under SIGN_UP=verify. */
export const SIGN_UP_VERIFY_MESSAGE =
  'If this email was not registered yet, its account has been created and a link to verify the address is on its way: sign in with this email and password, then follow the link to start using the account.';

/** The `detail` of 403 `auth.reauthentication_required`. */
export const REAUTHENTICATION_DETAIL =
  'Adding a passkey needs a sign-in with your password or a passkey in the last 10 minutes. Sign in again, then add it.';

/**
 * The `detail` of the 401 for a passkey this service does not know (deleted
 * here, or never registered): the page then tells the browser to stop
 * offering it. Credential ids are random, so saying so reveals no account.
 */
export const UNKNOWN_CREDENTIAL_DETAIL =
  'This passkey is not registered here (it may have been deleted). Sign in another way.';

/** The `detail` of 409 `account.last_employee`. */
export const LAST_EMPLOYEE_DETAIL =
  'This is the last active employee account: make another account an active employee first.';
