import { changeAccountByEmail, commandNotice } from './account-command';
import { command, loadConfig } from './cli';
import { userDisableCommand } from './commands';

const { values } = command(userDisableCommand);
const config = loadConfig();
// Disabling ends every session and refuses every token; the last active employee stays (exit 1).
await changeAccountByEmail(
  config,
  values.email,
  { disabled: values.enable !== true },
  commandNotice(config),
);
