# The gateway as a container image (see README, "Running as a fleet"):
#   docker build -t venue-wifi-gateway .
#   docker run -p 4000:4000 -e DATABASE_URL=postgresql://… -e REDIS_URL=redis://… venue-wifi-gateway
# Production dependencies only, the Prisma client generated at build, run as the unprivileged `node`
# user. Without DATABASE_URL it runs on the embedded database in /app/data (mount a volume there).
# Node 22 LTS (Node 20, which `engines` still allows, reached its end of life in April 2026).
ARG NODE_IMAGE=node:22.23.2-bookworm-slim

# ── Production dependencies ──────────────────────────────────────────────────────────────────
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts are skipped: @prisma/engines' would download a native schema engine the service
# never uses (it migrates with src/db/migrate.ts), prisma's only checks the Node version, esbuild's
# only verifies its binary (the per-platform package ships it) and the rest is telemetry. The one
# script we need, generating the client, runs in the next stage. `npm install` rather than `npm ci`:
# the lockfile lacks Biome's per-platform packages (dev only), which `npm ci` refuses; the locked
# versions are installed all the same.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# ── The Prisma client (src/generated), generated from prisma/schema.prisma ───────────────────
FROM deps AS prisma-client
COPY prisma.config.ts ./
COPY prisma ./prisma
# `generate:prisma` points the CLI at a stand-in schema engine: generating needs none.
RUN npm run generate:prisma

# ── Runtime ──────────────────────────────────────────────────────────────────────────────────
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json prisma.config.ts ./
# The migrations are applied on start (src/db/migrate.ts reads prisma/migrations).
COPY prisma ./prisma
COPY src ./src
COPY --from=prisma-client /app/src/generated ./src/generated
# The code stays root's (read-only to the service); only DATA_DIR is the service's.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 4000
# Readiness, as the balancer of compose.yaml checks it (deploy/haproxy.cfg). The slim image has no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `npm start` without npm in between: SIGTERM reaches the server itself, which drains and exits
# within SHUTDOWN_TIMEOUT_SECONDS (give the supervisor a stop timeout above it).
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "src/server.ts"]
