import { changeAccountByEmail } from './account-command';
import { command, loadConfig } from './cli';
import { userVerifyCommand } from './commands';

const { values } = command(userVerifyCommand);
// As following its link: the verification links go, the tokens that said unverified end.
await changeAccountByEmail(loadConfig(), values.email, { emailVerified: true });
