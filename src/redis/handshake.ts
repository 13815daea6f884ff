import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

/** How long the start-up check waits for a connection, a TLS handshake and the replies. */
export const CONNECT_TIMEOUT_MS = 3_000;

/** What a Redis URL asks for: where, whether over TLS, and who to sign in as. */
export interface RedisTarget {
  host: string;
  port: number;
  tls: boolean;
  username: string;
  password: string;
  database: string;
}

const decoded = (part: string) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

export function targetOf(url: string): RedisTarget {
  const parsed = new URL(url);
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port ? Number(parsed.port) : 6379,
    tls: parsed.protocol === 'rediss:',
    username: decoded(parsed.username),
    password: decoded(parsed.password),
    database: parsed.pathname.replace(/^\//, ''),
  };
}

/** One command in RESP, every argument a bulk string. */
const command = (...args: string[]) =>
  `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;

/** Why the start-up check failed: the connection itself, or the server's refusal of a command. */
export type HandshakeProblem = { transport: string } | { refused: string };

/** What an operator can do about a TLS error, by its code. */
function tlsHint(code: string): string {
  // The server's certificate does not verify against the trusted CAs.
  if (/SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY|CERT_UNTRUSTED/.test(code)) {
    return '; REDIS_TLS_CA_FILE names a CA to trust';
  }
  if (code.includes('CERTIFICATE_REQUIRED')) {
    return '; the service sends no client certificate: set tls-auth-clients to no or optional';
  }
  return '';
}

/**
 * Connects as the URL says (TLS trusting `tlsCa`, else the system's CAs and
 * NODE_EXTRA_CA_CERTS), then sends AUTH, SELECT and PING, speaking RESP
 * itself. Bun's client reports each of these failures as "Connection
 * closed"; this tells the operator which one it was: refused, untrusted
 * certificate, a TLS port spoken to in plain text (or the reverse), wrong
 * password, missing password, bad database. No reason includes the password.
 */
export function handshake(
  target: RedisTarget,
  tlsCa: string | undefined,
): Promise<HandshakeProblem | undefined> {
  const { host, port, username, password, database } = target;
  const commands = [
    ...(password
      ? [username ? command('AUTH', username, password) : command('AUTH', password)]
      : []),
    ...(database && database !== '0' ? [command('SELECT', database)] : []),
    command('PING'),
  ];
  return new Promise((resolve) => {
    const options = { host, port, timeout: CONNECT_TIMEOUT_MS };
    const socket: Socket = target.tls ? connectTls({ ...options, ca: tlsCa }) : connectTcp(options);
    let connected = false;
    let secured = !target.tls;
    let replies = '';
    const done = (problem: HandshakeProblem | undefined) => {
      socket.destroy();
      resolve(problem);
    };
    const transport = (reason: string) => done({ transport: reason });
    const send = () => {
      secured = true;
      socket.write(commands.join(''));
    };
    socket.once('connect', () => {
      connected = true;
      if (!target.tls) send();
    });
    socket.once('secureConnect', send);
    socket.on('data', (chunk) => {
      replies += chunk;
      const lines = replies.split('\r\n').slice(0, -1);
      const refusal = lines.find((line) => line.startsWith('-'));
      if (refusal) done({ refused: refusal.slice(1) });
      else if (lines.length >= commands.length) done(undefined);
    });
    socket.once('timeout', () => {
      if (!connected) transport('ETIMEDOUT');
      else if (!secured) transport('no TLS handshake in time: not a TLS port? use redis://');
      else transport('no reply in time');
    });
    // In plain text, a TLS port closes the connection at the first bytes.
    const plainHint = target.tls ? '' : ': a TLS port? use rediss://';
    const refusedHint = ': nothing listens there; start Redis or correct REDIS_URL';
    socket.once('error', (error: Error & { code?: string }) => {
      const code = error.code ?? error.message;
      // Refused: the address is right or wrong, Redis is not up; both are the operator's to fix.
      if (!connected) transport(code === 'ECONNREFUSED' ? `${code}${refusedHint}` : code);
      else if (target.tls) transport(`TLS: ${code}, ${error.message}${tlsHint(code)}`);
      else transport(`${code}, closed without a reply${plainHint}`);
    });
    socket.once('close', () => transport(`closed without a reply${plainHint}`));
  });
}
