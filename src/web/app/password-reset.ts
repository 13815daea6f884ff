/**
 * "Forgot your password?": asking for a link by mail, and, on the page the
 * link opens (`/account#reset=<token>`), choosing the new password. The
 * token stays in the fragment: it never reaches a server log or a Referer.
 */
import { type Action, api } from './api';
import { clearMessage, say, ui } from './elements';

type Run = (action: Action, button: HTMLButtonElement | null, work: () => Promise<void>) => void;

const RESET_FRAGMENT = /^#reset=([\w-]{1,128})$/;

const submitterOf = (event: SubmitEvent) =>
  event.submitter instanceof HTMLButtonElement ? event.submitter : null;

/** Wires both forms; answers whether the page was opened from a reset link. */
export function wirePasswordReset(run: Run, signedOut: () => void): boolean {
  ui.forgotPassword.addEventListener('click', () => {
    const open = ui.resetRequestForm.hidden;
    ui.resetRequestForm.hidden = !open;
    ui.forgotPassword.setAttribute('aria-expanded', String(open));
    if (open) {
      ui.resetEmail.value ||= ui.signInEmail.value;
      ui.resetEmail.focus();
    }
  });

  ui.resetRequestForm.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessage();
    run('request-reset', submitterOf(event), async () => {
      const { message } = await api<{ message: string }>('POST', '/auth/password-reset', {
        email: ui.resetEmail.value,
      });
      ui.resetRequestForm.hidden = true;
      ui.forgotPassword.setAttribute('aria-expanded', 'false');
      say(message);
    });
  });

  // A link pasted into this page's own address bar changes only the fragment: start over from it.
  addEventListener('hashchange', () => {
    if (RESET_FRAGMENT.test(location.hash)) location.reload();
  });
  const token = RESET_FRAGMENT.exec(location.hash)?.[1];
  if (token === undefined) return false;
  ui.resetSection.hidden = false;
  ui.resetForm.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessage();
    run('reset-password', submitterOf(event), async () => {
      await api('POST', '/auth/password-reset/confirm', {
        token,
        password: ui.resetNewPassword.value,
      });
      // The link is spent: it leaves the address bar and the history entry.
      history.replaceState(null, '', location.pathname);
      ui.resetForm.reset();
      ui.resetSection.hidden = true;
      signedOut();
      say('Your password has been changed and every browser signed out. Sign in with it now.');
    });
  });
  ui.resetNewPassword.focus();
  return true;
}
