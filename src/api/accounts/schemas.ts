import { z } from 'zod';
import { CREDENTIAL_DEVICE_TYPES } from '@/db/stored-values';

const Password = z.string().max(1024);

/** A new password: sign-up's rule, wherever one is chosen. */
const NewPassword = Password.min(8);

export const SignUpBody = z.strictObject({
  // Surrounding spaces (a pasted address) are dropped before the check.
  email: z.string().trim().pipe(z.email().max(254)),
  password: NewPassword,
});

/** `POST /auth/password`: the current password, and the new one under sign-up's rule. */
export const ChangePasswordBody = z.strictObject({
  currentPassword: Password.min(1),
  newPassword: NewPassword,
});

/** `POST /admin/users/{id}/password`: the account's new password, under sign-up's rule. */
export const SetPasswordBody = z.strictObject({ password: NewPassword });

/** `POST /auth/password-reset`: the account's address, as typed. */
export const PasswordResetBody = z.strictObject({
  email: z.string().trim().pipe(z.email().max(254)),
});

/** Every reset request's answer, whether or not the address has an account. */
export const PasswordResetAccepted = z.object({ message: z.string() });

/** `POST /auth/password-reset/confirm`: the token of the link, and the new password under sign-up's rule. */
export const PasswordResetConfirmBody = z.strictObject({
  token: z.string().min(1).max(128),
  password: NewPassword,
});

/** Every sign-up answer, whether or not the email was free (nothing to tell them apart). */
export const SignUpAccepted = z.object({ email: z.string(), message: z.string() });

/** An account an employee creates (POST /admin/users): sign-up's rules plus the role. */
export const NewUserBody = SignUpBody.extend({ role: z.enum(['customer', 'employee']) });

export const SignInBody = z.strictObject({
  email: z.string().min(1).max(254),
  password: Password.min(1),
});

export const UserSummary = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(['customer', 'employee']),
  /** False from a sign-up under SIGN_UP=verify until its link is followed. */
  emailVerified: z.boolean(),
});

/** `POST /auth/email/confirm`: the token of a verification or change link. */
export const EmailLinkBody = z.strictObject({ token: z.string().min(1).max(128) });

/** What following an email link did: the account's address, now verified. */
export const EmailConfirmed = z.object({
  email: z.string(),
  purpose: z.enum(['verify', 'change']),
});

/** `POST /auth/email/change`: the new address, and the current password. */
export const EmailChangeBody = z.strictObject({
  email: z.string().trim().pipe(z.email().max(254)),
  currentPassword: Password.min(1),
});

/** The answer of a request that mails a link. */
export const EmailLinkSent = z.object({ message: z.string() });

export const SignInResponse = z.object({
  accessToken: z.string(),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().int(),
  user: UserSummary,
});

export const PasskeySummary = z.object({
  id: z.string(),
  credentialId: z.string().meta({
    description: "the WebAuthn credential id (base64url), as the browser's passkey list knows it",
  }),
  name: z.string(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  backedUp: z.boolean(),
  deviceType: z.enum(CREDENTIAL_DEVICE_TYPES),
  transports: z.array(z.string()),
  provider: z.string().meta({
    description: 'the passkey provider named by its AAGUID ("Passkey" when unknown)',
    example: 'iCloud Keychain',
  }),
  aaguid: z.string().meta({
    description: "the authenticator's AAGUID (all zeros when it did not say)",
    example: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
  }),
});

export const PasskeyList = z.object({ passkeys: z.array(PasskeySummary) });

const PasskeyName = z.string().trim().min(1).max(64);

export const RenameBody = z.strictObject({ name: PasskeyName });

export const PasskeyParams = z.object({ id: z.string() });

/**
 * Bounds on the browser's WebAuthn result (every input string and array is
 * bounded): a credential id is at most 1023 bytes (WebAuthn §5.1), a user
 * handle at most 64; the other fields get room for post-quantum keys and
 * signatures and for extensions. `transports` is stored with the passkey.
 */
const base64url = (maxBytes: number) => z.base64url().max(Math.ceil((maxBytes * 4) / 3));
const CredentialId = base64url(1023).min(1);
const Transports = z.array(z.string().max(32)).max(10);
const EXTENSION_RESULTS_MAX = 16 * 1024;
const ExtensionResults = z
  .record(z.string().max(64), z.unknown())
  .refine((value) => JSON.stringify(value).length <= EXTENSION_RESULTS_MAX, {
    message: `The input is more than ${EXTENSION_RESULTS_MAX} characters long once serialized`,
    params: { rule: 'objectTooLarge' },
  });

/** @simplewebauthn's RegistrationResponseJSON (the browser's `startRegistration()` result). */
export const RegistrationResponse = z.looseObject({
  id: CredentialId,
  rawId: CredentialId,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: base64url(16 * 1024),
    attestationObject: base64url(64 * 1024),
    transports: Transports.optional(),
  }),
  clientExtensionResults: ExtensionResults,
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

/** @simplewebauthn's AuthenticationResponseJSON (the browser's `startAuthentication()` result). */
export const AuthenticationResponse = z.looseObject({
  id: CredentialId,
  rawId: CredentialId,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: base64url(16 * 1024),
    authenticatorData: base64url(16 * 1024),
    signature: base64url(16 * 1024),
    userHandle: base64url(64).optional(),
  }),
  clientExtensionResults: ExtensionResults,
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

export const RegisterBody = z.strictObject({
  response: RegistrationResponse,
  name: PasskeyName.optional(),
});

export const AuthenticateBody = z.strictObject({ response: AuthenticationResponse });

/**
 * Registration options: `{mediation: "conditional"}` asks for a conditional
 * create, whose result may lack user presence (the password manager creates
 * the passkey silently right after a password sign-in).
 */
export const RegistrationOptionsBody = z
  .strictObject({ mediation: z.literal('conditional').optional() })
  .nullish();

export const AuthenticateOptionsBody = z
  .strictObject({ email: z.string().min(1).max(254).optional() })
  .nullish();

const CredentialDescriptor = z.looseObject({
  id: z.string(),
  type: z.literal('public-key'),
  transports: z.array(z.string()).optional(),
});

/** @simplewebauthn's PublicKeyCredentialCreationOptionsJSON (for `startRegistration()`). */
export const RegistrationOptions = z.looseObject({
  challenge: z.string(),
  rp: z.looseObject({ id: z.string().optional(), name: z.string() }),
  user: z.looseObject({ id: z.string(), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.looseObject({ alg: z.number(), type: z.literal('public-key') })),
  timeout: z.number().optional(),
  excludeCredentials: z.array(CredentialDescriptor).optional(),
  authenticatorSelection: z.looseObject({}).optional(),
  attestation: z.string().optional(),
});

/** @simplewebauthn's PublicKeyCredentialRequestOptionsJSON (for `startAuthentication()`). */
export const AuthenticationOptions = z.looseObject({
  challenge: z.string(),
  rpId: z.string().optional(),
  timeout: z.number().optional(),
  allowCredentials: z.array(CredentialDescriptor).optional(),
  userVerification: z.string().optional(),
});
