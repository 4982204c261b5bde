// Every API request passes here once, whichever language it speaks: it is authenticated once and
// spends the token's rate-limit budget once. Unauthenticated requests spend a per-address budget,
// so guessing tokens is throttled too.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, bearerToken, type Principal } from '../auth/principal.js';
import type { Prisma } from '../db/database.js';
import { AppError } from '../errors.js';
import type { RateLimitDecision, RateLimiter } from '../rate-limit/rate-limiter.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

function rateHeaders(reply: FastifyReply, d: RateLimitDecision): void {
  reply.header('X-RateLimit-Limit', String(d.limit));
  reply.header('X-RateLimit-Remaining', String(d.remaining));
}

export function requestGate(prisma: Prisma, limiter: RateLimiter) {
  /** `requireAuth: false` (unknown routes): spend the budget and set the headers, but let the caller through. */
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
    opts: { requireAuth?: boolean } = {},
  ): Promise<void> => {
    let principal: Principal | null = null;
    let authError: AppError | null = null;
    try {
      principal = await authenticate(prisma, bearerToken(request.headers.authorization));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      authError = err;
    }
    const decision = await limiter.consume(principal ? `token:${principal.tokenId}` : `ip:${request.ip}`);
    rateHeaders(reply, decision);
    if (!decision.allowed) {
      throw new AppError('RATE_LIMITED', {
        headers: {
          'Retry-After': String(decision.resetSeconds),
          'X-RateLimit-Reset': String(decision.resetAt),
        },
      });
    }
    if (authError && opts.requireAuth !== false) throw authError;
    request.principal = principal;
  };
}
