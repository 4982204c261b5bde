// A loopback TCP proxy between the app and a shared server, so tests can make the database
// unreachable or unresponsive without touching the server other people's tests use.
import net from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'hang';

export interface TcpProxy {
  readonly port: number;
  /** `postgresql://…` with the proxy's host and port in place of the target's. */
  url(targetUrl: string): string;
  /**
   * `refuse`: stop listening (new connections get ECONNREFUSED) and drop open ones.
   * `hang`: accept new connections but forward nothing, and stall open ones.
   * `pass`: forward again (stalled connections are dropped, as a server restart would).
   */
  set(mode: ProxyMode): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass';
  const open = new Set<net.Socket>();
  const stalled = new Set<net.Socket>();

  const track = (s: net.Socket): void => {
    open.add(s);
    s.on('close', () => {
      open.delete(s);
      stalled.delete(s);
    });
    s.on('error', () => s.destroy());
  };

  const onConnection = (client: net.Socket): void => {
    track(client);
    if (mode === 'hang') {
      stalled.add(client);
      return;
    }
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };

  let server = net.createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as net.AddressInfo).port;

  const dropAll = (): void => {
    for (const s of open) s.destroy();
  };
  const stopListening = (): Promise<void> =>
    new Promise((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });

  const listen = async (): Promise<void> => {
    if (server.listening) return;
    server = net.createServer(onConnection);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
  };

  return {
    port,
    url(targetUrl) {
      const u = new URL(targetUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async set(next) {
      if (next === 'refuse') {
        mode = next;
        const closed = stopListening();
        dropAll();
        await closed;
        return;
      }
      if (next === 'hang') {
        mode = next;
        await listen();
        // Open connections stop moving: unpipe both ways and hold the sockets.
        for (const s of open) {
          s.unpipe();
          s.pause();
          stalled.add(s);
        }
        return;
      }
      mode = 'pass';
      for (const s of stalled) s.destroy();
      await listen();
    },

    async close() {
      const closed = stopListening();
      dropAll();
      await closed;
    },
  };
}
