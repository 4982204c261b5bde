// One webhook attempt's cost in the sending process: sendWebhook on the worker's kept-alive
// connections (webhookConnections), 32 at once, to a receiver in a process of its own answering 204;
// prints attempts/s and this process's CPU per attempt (user + system, so the sockets' system calls
// count) for three rounds of 30 000 (the first warms up).
//   npx tsx bench/webhook-sender.bench.ts
import { sendWebhook, webhookConnections } from '../src/events/webhook-sender.js';
import { startReceiverProcess } from './webhook-receiver.js';

const ATTEMPTS = 30_000;
const AT_ONCE = 32;
const receiver = await startReceiverProcess();
const connections = webhookConnections({ allowPrivate: true, timeoutMs: 5_000, connections: AT_ONCE });
const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const body = JSON.stringify({
  type: 'presence.zone_entered',
  timestamp: new Date().toISOString(),
  data: {
    id: 'dev_0123456789',
    mac: '02:00:00:00:00:01',
    zone_id: 'zone_0123456789',
    location_id: 'loc_01234567',
  },
});

console.log('round  attempts/s  CPU per attempt');
for (let round = 1; round <= 3; round++) {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < ATTEMPTS) {
        const id = `evt_bench_${round}_${next++}`;
        const r = await sendWebhook(
          receiver.url,
          [secret],
          { id, body },
          {
            timeoutMs: 5_000,
            allowPrivate: true,
            connections,
          },
        );
        if (r.outcome !== 'succeeded') throw new Error(`attempt failed: ${r.error}`);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  const perSecond = (ATTEMPTS / (performance.now() - started)) * 1000;
  console.log(
    `${String(round).padEnd(5)}  ${perSecond.toFixed(0).padStart(10)}  ${((used.user + used.system) / ATTEMPTS).toFixed(1)} µs`,
  );
}
await connections.destroy();
await receiver.close();
