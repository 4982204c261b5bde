// Absurdly nested input is refused before anything recurses over it: graphql-js's parser recurses
// once per bracket (a list literal a few thousand deep overflows the stack before the token limit
// stops it), and variables are walked by coercion. Both checks are iterative and cheap.
import { GraphQLError, Lexer, Source, syntaxError, TokenKind } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const OPENERS = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSERS = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * Throws a syntax error at the first bracket past `maxNesting` levels. Scans at most `maxTokens`
 * tokens (the parser's own limit stops it there); lexical errors are left to the parser.
 */
export function assertQueryNesting(query: string, maxNesting: number, maxTokens: number): void {
  const source = new Source(query);
  const at = tooDeepAt(new Lexer(source), maxNesting, maxTokens);
  if (at !== null) throw syntaxError(source, at, `Nesting limit of ${maxNesting} exceeded.`);
}

function tooDeepAt(lexer: Lexer, maxNesting: number, maxTokens: number): number | null {
  let depth = 0;
  try {
    for (let n = 0; n <= maxTokens; n++) {
      const token = lexer.advance();
      if (token.kind === TokenKind.EOF) return null;
      if (OPENERS.has(token.kind) && ++depth > maxNesting) return token.start;
      if (CLOSERS.has(token.kind)) depth--;
    }
  } catch {
    // Whatever the lexer refuses, the parser reports with its own message.
  }
  return null;
}

/** The name of the first variable whose value nests arrays/objects deeper than `maxNesting`, or null. */
export function tooDeepVariable(variables: Record<string, unknown>, maxNesting: number): string | null {
  for (const [name, value] of Object.entries(variables)) {
    const stack: Array<[unknown, number]> = [[value, 0]];
    for (let item = stack.pop(); item; item = stack.pop()) {
      const [v, depth] = item;
      if (v === null || typeof v !== 'object') continue;
      if (depth + 1 > maxNesting) return name;
      for (const child of Object.values(v)) stack.push([child, depth + 1]);
    }
  }
  return null;
}

/** A request error (no data): 200 under `application/json`, 400 under `application/graphql-response+json`. */
export const requestErrorHttp = { status: 400, spec: true } as const;

export function nestingLimit(opts: { maxNesting: number; maxTokens: number }): Plugin {
  return {
    onParams({ params, setResult }) {
      const variables = params.variables;
      if (!variables || typeof variables !== 'object') return;
      const name = tooDeepVariable(variables, opts.maxNesting);
      if (name === null) return;
      setResult({
        errors: [
          new GraphQLError(`Variable "$${name}" is nested deeper than ${opts.maxNesting} levels.`, {
            extensions: { code: 'BAD_USER_INPUT', http: requestErrorHttp },
          }),
        ],
      });
    },
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        assertQueryNesting(
          typeof source === 'string' ? source : source.body,
          opts.maxNesting,
          opts.maxTokens,
        );
        return parseFn(source, options);
      });
    },
  };
}
