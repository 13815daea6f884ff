/**
 * The account's address: the notice an unverified account sees, with its
 * "Send a new link" button, the change-of-address form, and the page a mailed link opens
 * (`/account#verify=<token>` or `#email-change=<token>`), which follows it
 * at once. The token stays in the fragment: it never reaches a server log
 * or a Referer.
 */
import { type Action, api, type User } from './api';
import { clearMessage, say, ui } from './elements';

type Run = (action: Action, button: HTMLButtonElement | null, work: () => Promise<void>) => void;

const LINK_FRAGMENT = /^#(verify|email-change)=([\w-]{1,128})$/;

/** Shows the notice while the account's address is not verified. */
export function showVerification(user: User) {
  ui.unverified.hidden = user.emailVerified;
  ui.unverifiedEmail.textContent = user.email;
}

/** Wires the resend button and the change-of-address form. */
export function wireVerification(run: Run) {
  ui.emailChangeForm.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessage();
    const submit = event.submitter instanceof HTMLButtonElement ? event.submitter : null;
    run('change-email', submit, async () => {
      const { message } = await api<{ message: string }>('POST', '/auth/email/change', {
        email: ui.emailChangeEmail.value,
        currentPassword: ui.emailChangePassword.value,
      });
      ui.emailChangeForm.reset();
      say(message);
    });
  });
  ui.resendVerification.addEventListener('click', () => {
    clearMessage();
    run('resend-verification', ui.resendVerification, async () => {
      const { message } = await api<{ message: string }>('POST', '/auth/email/verification');
      say(message);
    });
  });
  // A link pasted into this page's own address bar changes only the fragment: start over from it.
  addEventListener('hashchange', () => {
    if (LINK_FRAGMENT.test(location.hash)) location.reload();
  });
}

/**
 * Follows the link the page was opened from, if any, before the page
 * loads the account (so it loads verified); the link leaves the address bar.
 */
export async function followEmailLink(): Promise<void> {
  const token = LINK_FRAGMENT.exec(location.hash)?.[2];
  if (token === undefined) return;
  // Spent or not, the link leaves the address bar and the history entry.
  history.replaceState(null, '', location.pathname);
  const { email, purpose } = await api<{ email: string; purpose: 'verify' | 'change' }>(
    'POST',
    '/auth/email/confirm',
    { token },
  );
  say(
    purpose === 'verify'
      ? `Your email address ${email} is verified.`
      : `Your email address is now ${email}.`,
  );
}
