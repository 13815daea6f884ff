/**
 * The password of an operator command, kept out of the argument list (which
 * other users of the machine can read in `ps` and shell history): the first
 * line of stdin when it is piped or redirected, otherwise typed at a prompt
 * without echo.
 */
export async function readPassword(prompt = 'Password: '): Promise<string> {
  return process.stdin.isTTY ? promptHidden(prompt) : firstLine(Bun.stdin.stream());
}

export const ARGV_PASSWORD_WARNING =
  'warning: --password is visible to other users of this machine (process list, shell history); pipe the password on stdin instead';

/** Reads up to the first line break (CRLF or LF) and stops; the rest is left unread. */
export async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (text.includes('\n')) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return text.split('\n')[0]!.replace(/\r$/, '');
}

/** A prompt on stderr; the terminal is put in raw mode so nothing typed is echoed. */
function promptHidden(prompt: string): Promise<string> {
  const { stdin, stderr } = process;
  stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed: string[] = [];
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
    };
    const onData = (chunk: Buffer) => {
      for (const character of chunk.toString('utf8')) {
        if (character === '\r' || character === '\n' || character === '\u0004') {
          finish();
          resolve(typed.join(''));
          return;
        }
        if (character === '\u0003') {
          finish();
          reject(new Error('cancelled'));
          return;
        }
        if (character === '\u007f' || character === '\b') typed = typed.slice(0, -1);
        else typed.push(character);
      }
    };
    stdin.on('data', onData);
  });
}
