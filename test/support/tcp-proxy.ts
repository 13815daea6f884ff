import type { Socket, TCPSocketListener } from 'bun';
import { freePort } from '../accounts/server-process';

interface Side {
  /** Bytes the socket did not take yet, written on `drain`. */
  queued: Uint8Array[];
  peer?: Socket<Side>;
  /** Bytes from the client before the upstream connection opened. */
  early: Uint8Array[];
}

function send(socket: Socket<Side>, chunk: Uint8Array) {
  if (socket.data.queued.length > 0) {
    socket.data.queued.push(chunk);
    return;
  }
  const written = socket.write(chunk);
  if (written < chunk.byteLength) socket.data.queued.push(chunk.subarray(written));
}

function drain(socket: Socket<Side>) {
  while (socket.data.queued.length > 0) {
    const chunk = socket.data.queued[0]!;
    const written = socket.write(chunk);
    if (written < chunk.byteLength) {
      socket.data.queued[0] = chunk.subarray(written);
      return;
    }
    socket.data.queued.shift();
  }
}

/**
 * A TCP relay on a loopback port of its own to `target`: a test points a
 * client at it, then `cut()`s it (every connection dropped, new ones
 * refused) to play a server that went away, and `restore()`s it on the
 * same port. Never touches the server itself. `onClientBytes` watches what
 * the clients send (`pgWireCounter` counts PostgreSQL statements with it).
 */
export function tcpProxy(
  target: { host: string; port: number },
  {
    onClientBytes,
  }: {
    /** Sees every chunk a client sends, with an object standing for its connection. */
    onClientBytes?: (connection: object, chunk: Uint8Array) => void;
  } = {},
) {
  const port = freePort();
  const open = new Set<Socket<Side>>();
  let listener: TCPSocketListener<Side> | undefined;

  const listen = () => {
    listener = Bun.listen<Side>({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(client) {
          client.data = { queued: [], early: [] };
          open.add(client);
          Bun.connect<Side>({
            hostname: target.host,
            port: target.port,
            socket: {
              open(upstream) {
                upstream.data = { queued: [], early: [], peer: client };
                client.data.peer = upstream;
                open.add(upstream);
                for (const chunk of client.data.early) send(upstream, chunk);
                client.data.early = [];
              },
              data: (upstream, chunk) => send(upstream.data.peer!, new Uint8Array(chunk)),
              drain,
              close(upstream) {
                open.delete(upstream);
                upstream.data.peer?.end();
              },
              error(upstream) {
                upstream.data.peer?.end();
              },
            },
          }).catch(() => client.end());
        },
        data(client, chunk) {
          onClientBytes?.(client, new Uint8Array(chunk));
          const upstream = client.data.peer;
          if (upstream) send(upstream, new Uint8Array(chunk));
          else client.data.early.push(new Uint8Array(chunk));
        },
        drain,
        close(client) {
          open.delete(client);
          client.data.peer?.end();
        },
      },
    });
  };
  listen();

  return {
    port,
    /** Drops every relayed connection at once and stops listening. */
    cut() {
      for (const socket of open) socket.terminate();
      open.clear();
      listener?.stop(true);
      listener = undefined;
    },
    /** Listens again on the same port. */
    restore() {
      if (!listener) listen();
    },
    close() {
      this.cut();
    },
  };
}
