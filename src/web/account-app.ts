/**
 * Browser script of GET /account, bundled by Bun.build (src/web/routes.ts).
 * Talks to /auth with the session cookie; every failure is told in words.
 */
import {
  browserSupportsWebAuthn,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
  startRegistration,
} from '@simplewebauthn/browser';
import { REAUTHENTICATION_DETAIL } from '../accounts/messages';
import {
  type Action,
  ApiError,
  api,
  describe,
  type Passkey,
  signInAfterSignUp,
  type User,
} from './app/api';
import { offerConditionalCreate } from './app/auto-register';
import { clearMessage, say, ui } from './app/elements';
import { followEmailLink, showVerification, wireVerification } from './app/email-links';
import { type PasskeyActions, renderPasskey } from './app/passkey-item';
import { passkeySignIn } from './app/passkey-sign-in';
import { wirePasswordReset } from './app/password-reset';
import { showPortal } from './app/portal';
import { showSecurityLog } from './app/security-log';
import { type BrowserSession, showSessions } from './app/sessions';
import * as signals from './app/signals';
import { propertiesView } from './console/properties';

/** The signed-in user (null while signed out). */
let current: User | null = null;

const isAbort = (error: unknown) => error instanceof Error && error.name === 'AbortError';

/** Runs one action with its button disabled; failures are said, never thrown. */
async function run(action: Action, button: HTMLButtonElement | null, work: () => Promise<void>) {
  if (button) button.disabled = true;
  try {
    await work();
  } catch (error) {
    if (isAbort(error)) return;
    // A wrong current password is a 401 too: it says nothing about the session.
    const signedInAction = ![
      'load',
      'sign-in',
      'sign-up',
      'passkey-sign-in',
      'change-password',
      'change-email',
      'request-reset',
      'reset-password',
    ].includes(action);
    if (error instanceof ApiError && error.status === 401 && signedInAction) showSignedOut();
    if (error instanceof ApiError && error.detail === REAUTHENTICATION_DETAIL) showSignedOut();
    say(describe(error, action), 'error');
  } finally {
    if (button) button.disabled = false;
  }
}

const withPasskey = passkeySignIn(run, enter);

const actions: PasskeyActions = {
  rename(passkey, name, button) {
    void run('rename', button, async () => {
      const renamed = await api<Passkey>('PATCH', `/auth/passkeys/${passkey.id}`, { name });
      say(`Renamed the passkey to “${renamed.name}”.`);
      await loadPasskeys();
    });
  },
  remove(passkey, button) {
    void run('delete', button, async () => {
      await api('DELETE', `/auth/passkeys/${passkey.id}`);
      say(`Deleted the passkey “${passkey.name}”.`);
      await loadPasskeys();
    });
  },
};

/** The passkeys and recent security events; the provider learns which passkeys still count. */
async function loadPasskeys() {
  const { passkeys } = await api<{ passkeys: Passkey[] }>('GET', '/auth/passkeys');
  ui.passkeyList.replaceChildren(...passkeys.map((passkey) => renderPasskey(passkey, actions)));
  ui.noPasskeys.hidden = passkeys.length > 0;
  if (current) void signals.signalAcceptedPasskeys(current, passkeys);
  await Promise.all([
    showSessions(ui.sessionList, signOutElsewhere),
    showSecurityLog(ui.securityLog),
  ]);
}

function signOutElsewhere(session: BrowserSession, button: HTMLButtonElement) {
  void run('sign-out-elsewhere', button, async () => {
    await api('DELETE', `/auth/sessions/${session.id}`);
    say('That browser is signed out.');
    await loadPasskeys();
  });
}

function showSignedIn(user: User) {
  ui.loading.hidden = true;
  ui.signedOut.hidden = true;
  ui.signedIn.hidden = false;
  ui.userEmail.textContent = user.email;
  ui.consoleLink.hidden = user.role !== 'employee';
  // Password managers pair the new password with this account.
  ui.passwordUsername.value = user.email;
}

function showSignedOut() {
  current = null;
  ui.loading.hidden = true;
  ui.signedIn.hidden = true;
  ui.signedOut.hidden = false;
  ui.consoleLink.hidden = true;
  void withPasskey.offerAutofill();
}

async function enter(user: User) {
  current = user;
  void signals.signalCurrentUser(user);
  showSignedIn(user);
  showVerification(user);
  ui.signInForm.reset();
  ui.signUpForm?.reset();
  // The plan, usage and webhooks are the API's: an unverified account has none of them yet.
  for (const card of [ui.usageCard, ui.webhooksCard]) card.hidden = !user.emailVerified;
  showMyProperties(user);
  await Promise.all([loadPasskeys(), user.emailVerified ? showPortal() : undefined]);
}

/**
 * A customer's own properties, through the listings API as the console's
 * Properties page shows every one (employees use the console). Loaded
 * when the card is opened (or a link names a property), so an /account
 * visit that does not look at them costs no request.
 */
let myProperties: ReturnType<typeof propertiesView> | undefined;
const propertiesCard = document.getElementById('my-properties-card') as HTMLDetailsElement;
function showMyProperties(user: User) {
  propertiesCard.hidden = !(user.emailVerified && user.role === 'customer');
  myProperties = propertiesCard.hidden
    ? undefined
    : propertiesView(document.getElementById('my-properties')!, {
        base: 'my-properties',
        customerId: user.id,
      });
  // A link to a property opens the card, whose toggle shows it.
  if (myProperties && location.hash.startsWith('#my-properties') && !propertiesCard.open)
    propertiesCard.open = true;
  else if (propertiesCard.open) void myProperties?.show();
}
propertiesCard.addEventListener('toggle', () => {
  if (propertiesCard.open) void myProperties?.show();
});
window.addEventListener('hashchange', () => {
  if (!myProperties || !location.hash.startsWith('#my-properties')) return;
  if (propertiesCard.open) void myProperties.show();
  else propertiesCard.open = true;
});

ui.signInForm.addEventListener('submit', (event) => {
  event.preventDefault();
  clearMessage();
  const submit = event.submitter instanceof HTMLButtonElement ? event.submitter : null;
  void run('sign-in', submit, async () => {
    const signedIn = await api<{ user: User }>('POST', '/auth/sign-in', {
      email: ui.signInEmail.value,
      password: ui.signInPassword.value,
    });
    await enter(signedIn.user);
    say(`Signed in as ${signedIn.user.email}.`);
    void offerConditionalCreate(async (passkey) => {
      say(`Your password manager saved a passkey for this account: “${passkey.name}”.`);
      await loadPasskeys();
    });
  });
});

ui.passkeySignIn.addEventListener('click', withPasskey.signInWithButton);

ui.signUpForm?.addEventListener('submit', (event) => {
  event.preventDefault();
  clearMessage();
  const submit = event.submitter instanceof HTMLButtonElement ? event.submitter : null;
  void run('sign-up', submit, async () => {
    const credentials = { email: ui.signUpEmail.value, password: ui.signUpPassword.value };
    // The answer is the same whether or not the email was free; signing in tells them apart.
    await api('POST', '/auth/sign-up', credentials);
    const signedIn = await signInAfterSignUp(credentials);
    await enter(signedIn.user);
    say(
      signedIn.user.emailVerified
        ? 'Your account is ready and you are signed in. Add a passkey to sign in faster next time.'
        : `Your account is ready and you are signed in. Follow the link we sent to ${signedIn.user.email} to start using it.`,
    );
  });
});

ui.signOut.addEventListener('click', () => {
  clearMessage();
  void run('sign-out', ui.signOut, async () => {
    await api('POST', '/auth/sign-out');
    showSignedOut();
    say('You have signed out.');
  });
});

ui.signOutEverywhere.addEventListener('click', () => {
  clearMessage();
  void run('sign-out-everywhere', ui.signOutEverywhere, async () => {
    await api('DELETE', '/auth/sessions');
    showSignedOut();
    say('You have signed out everywhere, this browser too.');
  });
});

ui.passwordForm.addEventListener('submit', (event) => {
  event.preventDefault();
  clearMessage();
  const submit = event.submitter instanceof HTMLButtonElement ? event.submitter : null;
  void run('change-password', submit, async () => {
    await api('POST', '/auth/password', {
      currentPassword: ui.currentPassword.value,
      newPassword: ui.newPassword.value,
    });
    // Not reset(): that would also blank the hidden username a password manager saves it under.
    ui.currentPassword.value = '';
    ui.newPassword.value = '';
    say('Your password has been changed. Your other browsers are signed out.');
    await loadPasskeys();
  });
});

ui.addPasskeyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  clearMessage();
  const submit = event.submitter instanceof HTMLButtonElement ? event.submitter : null;
  void run('add-passkey', submit, async () => {
    if (!browserSupportsWebAuthn()) {
      say("This browser doesn't support passkeys.", 'error');
      return;
    }
    const optionsJSON = await api<PublicKeyCredentialCreationOptionsJSON>(
      'POST',
      '/auth/passkey/register/options',
    );
    const response: RegistrationResponseJSON = await startRegistration({ optionsJSON });
    const name = ui.passkeyName.value.trim();
    const passkey = await api<Passkey>('POST', '/auth/passkey/register', {
      response,
      ...(name ? { name } : {}),
    });
    ui.passkeyName.value = '';
    say(`Added the passkey “${passkey.name}”.`);
    await loadPasskeys();
  });
});

const fromResetLink = wirePasswordReset(
  (action, button, work) => void run(action, button, work),
  showSignedOut,
);

wireVerification((action, button, work) => void run(action, button, work));

void run('load', null, async () => {
  // A reset link's page shows its form alone: whoever is signed in here is signed out by it.
  if (fromResetLink) {
    ui.loading.hidden = true;
    return;
  }
  // A verification or change link is followed first; a refused one still loads the page.
  await run('confirm-email', null, followEmailLink);
  try {
    const user = await api<User>('GET', '/auth/me');
    await enter(user);
  } catch (error) {
    if (!(error instanceof ApiError && (error.status === 401 || error.status === 404))) throw error;
    showSignedOut();
  }
});
