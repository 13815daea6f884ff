import { renderMail } from '@/mail/render';
import { smtpTransport } from '@/mail/transport';
import { command, fail, loadConfig } from './cli';
import { mailTestCommand } from './commands';

const { values } = command(mailTestCommand);
const config = loadConfig();
const { smtp, from } = config.mail;
if (!smtp) {
  fail(
    'mail:test: SMTP_HOST is not set, so the server writes mail to its log; set SMTP_HOST and MAIL_FROM (docs/configuration.md#mail)',
  );
}
const language = values.language === 'es' ? 'es' : 'en';
const transport = smtpTransport(smtp, from);
const outcome = await transport.send({
  to: values.to,
  ...renderMail('test', language, { service: config.rpName }),
});
transport.close();
const server = `${smtp.host}:${smtp.port} (${smtp.tls})`;
if (!outcome.sent) {
  fail(
    `mail:test: not sent through ${server}: ${outcome.response}; check the SMTP_* variables (docs/configuration.md#mail)`,
  );
}
console.log(`sent to ${values.to} through ${server}; the server answered: ${outcome.response}`);
