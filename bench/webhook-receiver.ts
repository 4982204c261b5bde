// A webhook receiver for the benches, in a process of its own (as a partner's receiver is on another
// machine: its work is not the gateway's, and must not take turns with it on one event loop). It
// answers 204 to every POST and notes each event's lag (arrival minus the event's time), except
// for the endpoint's own `webhook.*` events.
//   const receiver = await startReceiverProcess(); … receiver.url … await receiver.stats(); await receiver.close();
import { type ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface ReceiverStats {
  /** Lags in ms, in arrival order. */
  lags: number[];
}

export interface ReceiverProcess {
  url: string;
  /** Its process id (for its CPU). */
  pid: number;
  stats(): Promise<ReceiverStats>;
  close(): Promise<void>;
}

type FromChild = { listening: number } | { stats: ReceiverStats };

export async function startReceiverProcess(): Promise<ReceiverProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--receiver'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<FromChild>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the receiver exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        resolve(m as FromChild);
      });
    });
  const ready = await next();
  if (!('listening' in ready)) throw new Error('the receiver did not start');
  return {
    url: `http://127.0.0.1:${ready.listening}/`,
    pid: child.pid as number,
    async stats() {
      const answer = next();
      child.send('stats');
      const m = await answer;
      if (!('stats' in m)) throw new Error('the receiver answered something else');
      return m.stats;
    },
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}

if (process.argv.includes('--receiver') && process.send) {
  const stats: ReceiverStats = { lags: [] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; timestamp: string };
      if (!body.type.startsWith('webhook.')) stats.lags.push(Date.now() - Date.parse(body.timestamp));
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ listening: (server.address() as AddressInfo).port });
  });
  process.on('message', () => process.send?.({ stats }));
  process.on('disconnect', () => process.exit(0));
}
