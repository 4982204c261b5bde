// The delivery settings a webhook bench takes from its environment, as the server reads them
// (WEBHOOKS_CONCURRENCY, WEBHOOKS_CONCURRENCY_PER_ENDPOINT, WEBHOOKS_THREAD): those that are set.
export function webhookSettingsFromEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['WEBHOOKS_CONCURRENCY', 'WEBHOOKS_CONCURRENCY_PER_ENDPOINT', 'WEBHOOKS_THREAD']) {
    const value = process.env[name];
    if (value) out[name] = value;
  }
  return out;
}
