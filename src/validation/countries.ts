import { createRequire } from 'node:module';
import type Countries from 'i18n-iso-countries';

// The package's Node entry registers all 78 locales on import (82 files, about 0.08 s of CPU at every
// start of the server and the admin CLI); its library entry registers none, and English is the one
// used here. Under NodeNext a CommonJS module's default import is its `module.exports`.
const require = createRequire(import.meta.url);
const countries = require('i18n-iso-countries/index.js') as typeof Countries;
countries.registerLocale(
  require('i18n-iso-countries/langs/en.json') as Parameters<typeof countries.registerLocale>[0],
);

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
