/**
 * An address as sessions and devices store it, and as `GET /sessions/:ip_address` looks it up: IPv6
 * text in lower case (`2001:DB8::ABCD` is `2001:db8::abcd`), IPv4 as it is. Every writer of an
 * address and the lookup take it from here, so a session is found under any spelling (probe R).
 */
export const storedIpAddress = (ip: string): string => (ip.includes(':') ? ip.toLowerCase() : ip);
