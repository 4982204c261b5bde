// MAC addresses are stored upper-case with colons (`AA:BB:CC:00:11:22`); look-ups also match the
// lower-case form other writers may have stored.

// Colons, hyphens or nothing between bytes, or Cisco's dots between groups of four (`aabb.ccdd.eeff`,
// which Laravel's `mac_address` takes too: probe R found it refused here and taken by the filters).
const MAC =
  /^(?:[0-9A-Fa-f]{2}([:-]?)[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4})$/;

export const isMac = (v: unknown): boolean => typeof v === 'string' && MAC.test(v);

/** `aa-bb-cc-00-11-22` → `AA:BB:CC:00:11:22`. */
export function normalizeMac(mac: string): string {
  const hex = mac.replace(/[^0-9A-Fa-f]/g, '').toUpperCase();
  return hex.match(/.{2}/g)?.join(':') ?? mac;
}

/** The stored forms a MAC may have: as given, upper- and lower-case canonical. */
export function macVariants(mac: string): string[] {
  const canonical = isMac(mac) ? normalizeMac(mac) : mac;
  return [...new Set([mac, canonical, canonical.toLowerCase()])];
}
