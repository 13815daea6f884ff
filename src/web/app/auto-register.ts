/**
 * Conditional create: right after a password sign-in, where the browser can,
 * the page asks the password manager that filled the form to create a passkey
 * silently. The manager may decline without a word; so does the page.
 */
import {
  type PublicKeyCredentialCreationOptionsJSON,
  startRegistration,
} from '@simplewebauthn/browser';
import { api, type Passkey } from './api';
import { supportsConditionalCreate } from './signals';

export async function offerConditionalCreate(created: (passkey: Passkey) => Promise<void>) {
  if (!(await supportsConditionalCreate())) return;
  let passkey: Passkey;
  try {
    const optionsJSON = await api<PublicKeyCredentialCreationOptionsJSON>(
      'POST',
      '/auth/passkey/register/options',
      { mediation: 'conditional' },
    );
    const response = await startRegistration({ optionsJSON, useAutoRegister: true });
    passkey = await api<Passkey>('POST', '/auth/passkey/register', { response });
  } catch {
    // Declined or unsupported after all: the sign-in stands as it is.
    return;
  }
  await created(passkey);
}
