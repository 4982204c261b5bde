// The package's Node entry registers every locale on import; its d.ts has no default export,
// but under NodeNext a CommonJS module's default import is its `module.exports`.
import countries from 'i18n-iso-countries';

const ALPHA2 = new Set(Object.keys(countries.getAlpha2Codes()));

/** True for an upper-case ISO 3166-1 alpha-2 code (`US`); `us`, alpha-3 and numeric codes are not codes here. */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && ALPHA2.has(code);
}

// Every code's name once: a page of guests names two countries per row.
const NAMES = new Map([...ALPHA2].map((code) => [code, countries.getName(code, 'en') ?? null]));

/** English short name (`US` -> `United States of America`), or null for anything `isCountryCode` rejects. */
export function countryName(code: string): string | null {
  return NAMES.get(code) ?? null;
}
