/**
 * Browser script of GET /account, bundled by Bun.build (src/web/routes.ts).
 * Talks to /auth with the session cookie; every failure is told in words.
 */
import {
  type AuthenticationResponseJSON,
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';

interface User {
  id: string;
  email: string;
  role: string;
}

interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  backedUp: boolean;
  deviceType: 'singleDevice' | 'multiDevice';
  transports: string[];
}

type Action =
  | 'load'
  | 'sign-in'
  | 'sign-up'
  | 'passkey-sign-in'
  | 'add-passkey'
  | 'rename'
  | 'delete'
  | 'sign-out';

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterSeconds: number | null,
  ) {
    super(`HTTP ${status}`);
  }
}

const element = <T extends HTMLElement = HTMLElement>(id: string) =>
  document.getElementById(id) as T;

const ui = {
  message: element('message'),
  loading: element('loading'),
  signedOut: element('signed-out'),
  signedIn: element('signed-in'),
  signInForm: element<HTMLFormElement>('sign-in-form'),
  signInEmail: element<HTMLInputElement>('sign-in-email'),
  signInPassword: element<HTMLInputElement>('sign-in-password'),
  passkeySignIn: element<HTMLButtonElement>('passkey-sign-in-button'),
  signUpForm: element<HTMLFormElement>('sign-up-form'),
  signUpEmail: element<HTMLInputElement>('sign-up-email'),
  signUpPassword: element<HTMLInputElement>('sign-up-password'),
  userEmail: element('user-email'),
  signOut: element<HTMLButtonElement>('sign-out-button'),
  passkeyList: element<HTMLUListElement>('passkey-list'),
  noPasskeys: element('no-passkeys'),
  addPasskeyForm: element<HTMLFormElement>('add-passkey-form'),
  passkeyName: element<HTMLInputElement>('passkey-name'),
};

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
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
    throw new ApiError(response.status, Number.isFinite(retryAfter) ? retryAfter : null);
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
    409: 'An account with this email already exists. Sign in instead.',
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
};

/** Turns any failure into a sentence for the person at the keyboard. */
function describe(error: unknown, action: Action): string {
  if (error instanceof ApiError) {
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

const isAbort = (error: unknown) => error instanceof Error && error.name === 'AbortError';

function say(text: string, kind: 'ok' | 'error' = 'ok') {
  ui.message.textContent = text;
  ui.message.classList.toggle('error', kind === 'error');
  ui.message.hidden = false;
}

function clearMessage() {
  ui.message.hidden = true;
  ui.message.textContent = '';
}

/** Runs one action with its button disabled; failures are said, never thrown. */
async function run(action: Action, button: HTMLButtonElement | null, work: () => Promise<void>) {
  if (button) button.disabled = true;
  try {
    await work();
  } catch (error) {
    if (isAbort(error)) return;
    const signedInAction = !['load', 'sign-in', 'sign-up', 'passkey-sign-in'].includes(action);
    if (error instanceof ApiError && error.status === 401 && signedInAction) showSignedOut();
    say(describe(error, action), 'error');
  } finally {
    if (button) button.disabled = false;
  }
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function passkeyDescription(passkey: Passkey): string {
  const parts = [`Added ${dateFormat.format(new Date(passkey.createdAt))}`];
  parts.push(
    passkey.lastUsedAt
      ? `last used ${dateFormat.format(new Date(passkey.lastUsedAt))}`
      : 'not used yet',
  );
  parts.push(passkey.deviceType === 'multiDevice' ? 'synced' : 'this device only');
  return parts.join(' · ');
}

function button(label: string, className: string, onClick: () => void): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.textContent = label;
  node.className = className;
  node.addEventListener('click', onClick);
  return node;
}

function renderPasskey(passkey: Passkey): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'passkey';
  item.dataset.passkeyId = passkey.id;

  const showView = () => {
    const name = document.createElement('div');
    name.className = 'name';
    name.textContent = passkey.name;
    const meta = document.createElement('div');
    meta.className = 'meta';
    meta.textContent = passkeyDescription(passkey);
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    buttons.append(
      button('Rename', 'secondary small', showRename),
      button('Delete', 'secondary small', showConfirmDelete),
    );
    item.replaceChildren(name, meta, buttons);
  };

  const showRename = () => {
    const form = document.createElement('form');
    const label = document.createElement('label');
    label.textContent = 'New name';
    const input = document.createElement('input');
    input.value = passkey.name;
    input.maxLength = 64;
    input.required = true;
    input.setAttribute('aria-label', `New name for ${passkey.name}`);
    label.append(input);
    const save = document.createElement('button');
    save.type = 'submit';
    save.textContent = 'Save';
    save.className = 'small';
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    buttons.append(save, button('Cancel', 'secondary small', showView));
    form.append(label, buttons);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void run('rename', save, async () => {
        const renamed = await api<Passkey>('PATCH', `/auth/passkeys/${passkey.id}`, {
          name: input.value,
        });
        say(`Renamed the passkey to “${renamed.name}”.`);
        await loadPasskeys();
      });
    });
    item.replaceChildren(form);
    input.focus();
    input.select();
  };

  const showConfirmDelete = () => {
    const question = document.createElement('p');
    question.className = 'confirm';
    question.textContent = `Delete “${passkey.name}”? You won't be able to sign in with it any more.`;
    const confirm = button('Yes, delete', 'danger small', () => {
      void run('delete', confirm, async () => {
        await api('DELETE', `/auth/passkeys/${passkey.id}`);
        say(`Deleted the passkey “${passkey.name}”.`);
        await loadPasskeys();
      });
    });
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    buttons.append(confirm, button('Keep it', 'secondary small', showView));
    item.replaceChildren(question, buttons);
  };

  showView();
  return item;
}

async function loadPasskeys() {
  const { passkeys } = await api<{ passkeys: Passkey[] }>('GET', '/auth/passkeys');
  ui.passkeyList.replaceChildren(...passkeys.map(renderPasskey));
  ui.noPasskeys.hidden = passkeys.length > 0;
}

function showSignedIn(user: User) {
  ui.loading.hidden = true;
  ui.signedOut.hidden = true;
  ui.signedIn.hidden = false;
  ui.userEmail.textContent = user.email;
}

function showSignedOut() {
  ui.loading.hidden = true;
  ui.signedIn.hidden = true;
  ui.signedOut.hidden = false;
  void offerPasskeyAutofill();
}

async function enter(user: User) {
  showSignedIn(user);
  ui.signInForm.reset();
  ui.signUpForm.reset();
  await loadPasskeys();
}

async function finishPasskeySignIn(response: AuthenticationResponseJSON) {
  const signedIn = await api<{ user: User }>('POST', '/auth/passkey/authenticate', { response });
  await enter(signedIn.user);
  say(`Signed in with a passkey as ${signedIn.user.email}.`);
}

const authenticationOptions = () =>
  api<PublicKeyCredentialRequestOptionsJSON>('POST', '/auth/passkey/authenticate/options', {});

/**
 * Passkey autofill (conditional mediation): the browser lists this site's
 * passkeys under the email field. Started whenever the sign-in form shows;
 * the button flow below aborts it and restarts it when done.
 */
async function offerPasskeyAutofill() {
  if (!(await browserSupportsWebAuthnAutofill())) return;
  await run('passkey-sign-in', null, async () => {
    const optionsJSON = await authenticationOptions();
    let response: AuthenticationResponseJSON;
    try {
      response = await startAuthentication({ optionsJSON, useBrowserAutofill: true });
    } catch {
      // Autofill ends quietly when dismissed or replaced by the button's prompt.
      return;
    }
    await finishPasskeySignIn(response);
  });
}

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
  });
});

ui.passkeySignIn.addEventListener('click', () => {
  clearMessage();
  if (!browserSupportsWebAuthn()) {
    say("This browser doesn't support passkeys. Sign in with your password.", 'error');
    return;
  }
  void run('passkey-sign-in', ui.passkeySignIn, async () => {
    const optionsJSON = await authenticationOptions();
    let response: AuthenticationResponseJSON;
    try {
      response = await startAuthentication({ optionsJSON });
    } catch (error) {
      // The modal prompt replaced the autofill one; offer autofill again.
      if (!ui.signedOut.hidden) void offerPasskeyAutofill();
      throw error;
    }
    await finishPasskeySignIn(response);
  });
});

ui.signUpForm.addEventListener('submit', (event) => {
  event.preventDefault();
  clearMessage();
  const submit = event.submitter instanceof HTMLButtonElement ? event.submitter : null;
  void run('sign-up', submit, async () => {
    const credentials = { email: ui.signUpEmail.value, password: ui.signUpPassword.value };
    await api('POST', '/auth/sign-up', credentials);
    const signedIn = await api<{ user: User }>('POST', '/auth/sign-in', credentials);
    await enter(signedIn.user);
    say('Your account is ready and you are signed in. Add a passkey to sign in faster next time.');
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

void run('load', null, async () => {
  try {
    const user = await api<User>('GET', '/auth/me');
    await enter(user);
  } catch (error) {
    if (!(error instanceof ApiError && (error.status === 401 || error.status === 404))) throw error;
    showSignedOut();
  }
});
