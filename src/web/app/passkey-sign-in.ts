/**
 * Signing in with a passkey on the account page: autofill (conditional
 * mediation) while the sign-in form shows, and the button's modal prompt.
 */
import {
  type AuthenticationResponseJSON,
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
} from '@simplewebauthn/browser';
import { UNKNOWN_CREDENTIAL_DETAIL } from '../../accounts/messages';
import { type Action, ApiError, api, type User } from './api';
import { clearMessage, say, ui } from './elements';
import * as signals from './signals';

/** Runs one action with its button disabled; failures are said, never thrown. */
export type Run = (
  action: Action,
  button: HTMLButtonElement | null,
  work: () => Promise<void>,
) => Promise<void>;

/** The passkey sign-in of a page that runs actions with `run` and shows a signed-in `user` with `enter`. */
export function passkeySignIn(run: Run, enter: (user: User) => Promise<void>) {
  async function finish(response: AuthenticationResponseJSON) {
    const signedIn = await api<{ user: User }>('POST', '/auth/passkey/authenticate', {
      response,
    }).catch((error: unknown) => {
      // Deleted here: the provider should stop offering it.
      if (error instanceof ApiError && error.detail === UNKNOWN_CREDENTIAL_DETAIL)
        void signals.signalUnknownPasskey(response.id);
      throw error;
    });
    await enter(signedIn.user);
    say(`Signed in with a passkey as ${signedIn.user.email}.`);
  }

  const authenticationOptions = () =>
    api<PublicKeyCredentialRequestOptionsJSON>('POST', '/auth/passkey/authenticate/options', {});

  /**
   * Passkey autofill (conditional mediation): the browser lists this site's
   * passkeys under the email field. Started whenever the sign-in form shows;
   * the button's prompt (`signInWithButton`) aborts it and restarts it when done.
   */
  async function offerAutofill() {
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
      await finish(response);
    });
  }

  function signInWithButton() {
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
        if (!ui.signedOut.hidden) void offerAutofill();
        throw error;
      }
      await finish(response);
    });
  }

  return { offerAutofill, signInWithButton };
}
