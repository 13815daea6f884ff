import type { Socket } from 'bun';

export interface LoadResult {
  /** Answers with status 200. */
  ok: number;
  /** Answers with any other status. */
  failed: number;
  seconds: number;
}

const HEADER_END = '\r\n\r\n';
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/**
 * A minimal keep-alive HTTP/1.1 load generator on raw sockets: each
 * connection sends one GET, reads the whole answer (Content-Length framed)
 * and sends the next. Much cheaper per request than `fetch`, so the server —
 * not the client — is what the figures measure.
 */
export async function load(options: {
  host: string;
  port: number;
  path: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  const extra = Object.entries(options.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const request = Buffer.from(
    `GET ${options.path} HTTP/1.1\r\nhost: ${options.host}:${options.port}\r\n${extra}\r\n`,
  );
  const deadline = performance.now() + options.seconds * 1000;
  const result: LoadResult = { ok: 0, failed: 0, seconds: options.seconds };
  const started = performance.now();

  const connection = () =>
    new Promise<void>((resolve, reject) => {
      let buffered = '';
      const next = (socket: Socket) => {
        if (performance.now() >= deadline) {
          socket.end();
          resolve();
        } else socket.write(request);
      };
      Bun.connect({
        hostname: options.host,
        port: options.port,
        socket: {
          open: next,
          data(socket, chunk) {
            buffered += chunk.toString('latin1');
            for (;;) {
              const end = buffered.indexOf(HEADER_END);
              if (end < 0) return;
              const length = Number(CONTENT_LENGTH.exec(buffered.slice(0, end))?.[1] ?? 0);
              const total = end + HEADER_END.length + length;
              if (buffered.length < total) return;
              if (buffered.startsWith('HTTP/1.1 200')) result.ok++;
              else result.failed++;
              buffered = buffered.slice(total);
              next(socket);
            }
          },
          error: (_socket, error) => reject(error),
          close: () => resolve(),
        },
      }).catch(reject);
    });

  await Promise.all(Array.from({ length: options.connections }, connection));
  result.seconds = (performance.now() - started) / 1000;
  return result;
}
