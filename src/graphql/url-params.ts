// A GraphQL request in URL parameters (a GET's query string, an HTML form's body) carries its
// `variables` and `extensions` as JSON text, which graphql-yoga parses with a bare JSON.parse: text
// that is no JSON became an internal error (200 `Unexpected error.`, logged as a failure; probe K).
// They are read here first, as a JSON body is read: malformed, or with an unpaired surrogate, 400.
import { AppError } from '../errors.js';
import { hasLoneSurrogate } from '../shared/json-decode.js';

const JSON_PARAMS = ['variables', 'extensions'] as const;

/** Throws MALFORMED_JSON (400) naming the first of `variables`, `extensions` that is no JSON text. */
export function assertJsonParams(params: URLSearchParams): void {
  for (const name of JSON_PARAMS) {
    const text = params.get(name);
    // Yoga reads an empty parameter as none.
    if (!text) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw malformed(name);
    }
    if (hasLoneSurrogate(parsed)) throw malformed(name);
  }
}

const malformed = (name: string): AppError =>
  new AppError('MALFORMED_JSON', { message: `Malformed JSON in the ${name} parameter.` });
