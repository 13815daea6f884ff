/** The account page's elements, by id (src/web/account.html), and its message line. */
const element = <T extends HTMLElement = HTMLElement>(id: string) =>
  document.getElementById(id) as T;

export const ui = {
  message: element('message'),
  loading: element('loading'),
  signedOut: element('signed-out'),
  signedIn: element('signed-in'),
  signInForm: element<HTMLFormElement>('sign-in-form'),
  signInEmail: element<HTMLInputElement>('sign-in-email'),
  signInPassword: element<HTMLInputElement>('sign-in-password'),
  passkeySignIn: element<HTMLButtonElement>('passkey-sign-in-button'),
  /** Absent when the server's sign-up is closed. */
  signUpForm: document.getElementById('sign-up-form') as HTMLFormElement | null,
  signUpEmail: element<HTMLInputElement>('sign-up-email'),
  signUpPassword: element<HTMLInputElement>('sign-up-password'),
  userEmail: element('user-email'),
  signOut: element<HTMLButtonElement>('sign-out-button'),
  /** Shown to employees only. */
  consoleLink: element<HTMLAnchorElement>('console-link'),
  passkeyList: element<HTMLUListElement>('passkey-list'),
  noPasskeys: element('no-passkeys'),
  addPasskeyForm: element<HTMLFormElement>('add-passkey-form'),
  passkeyName: element<HTMLInputElement>('passkey-name'),
  securityLog: element<HTMLUListElement>('security-log'),
  sessionList: element<HTMLUListElement>('session-list'),
  signOutEverywhere: element<HTMLButtonElement>('sign-out-everywhere-button'),
  passwordForm: element<HTMLFormElement>('password-form'),
  passwordUsername: element<HTMLInputElement>('password-username'),
  currentPassword: element<HTMLInputElement>('current-password'),
  newPassword: element<HTMLInputElement>('new-password'),
  forgotPassword: element<HTMLButtonElement>('forgot-password-button'),
  resetRequestForm: element<HTMLFormElement>('reset-request-form'),
  resetEmail: element<HTMLInputElement>('reset-email'),
  resetSection: element('reset-password'),
  resetForm: element<HTMLFormElement>('reset-password-form'),
  resetNewPassword: element<HTMLInputElement>('reset-new-password'),
  usageCard: element('usage'),
  webhooksCard: element('webhooks'),
  emailChangeForm: element<HTMLFormElement>('email-change-form'),
  emailChangeEmail: element<HTMLInputElement>('email-change-email'),
  emailChangePassword: element<HTMLInputElement>('email-change-password'),
  unverified: element('unverified'),
  unverifiedEmail: element('unverified-email'),
  resendVerification: element<HTMLButtonElement>('resend-verification-button'),
};

/** Shows one sentence in the message line (an error in its own colours). */
export function say(text: string, kind: 'ok' | 'error' = 'ok') {
  ui.message.textContent = text;
  ui.message.classList.toggle('error', kind === 'error');
  ui.message.hidden = false;
}

export function clearMessage() {
  ui.message.hidden = true;
  ui.message.textContent = '';
}
