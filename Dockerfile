# The gateway as a container image (see README, "Running as a fleet"):
#   docker build -t venue-wifi-gateway .
#   docker run -p 4000:4000 -e DATABASE_URL=postgresql://… -e REDIS_URL=redis://… venue-wifi-gateway
# Production dependencies only, the Prisma client generated and the sources built (dist/) at build,
# run as the unprivileged `node` user. Without DATABASE_URL it runs on the embedded database in
# /app/data (mount a volume there).
# Node 22 LTS (Node 20, which `engines` still allows, reached its end of life in April 2026).
ARG NODE_IMAGE=node:22.23.2-bookworm-slim

# ── Production dependencies ──────────────────────────────────────────────────────────────────
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts are skipped: @prisma/engines' would download a native schema engine the service
# never uses (it migrates with src/db/migrate.ts), prisma's only checks the Node version, esbuild's
# only verifies its binary (the per-platform package ships it) and the rest is telemetry. The two
# steps we need, generating the client and building dist/, run in the next stage. `npm install`
# rather than `npm ci`: the lockfile lacks Biome's per-platform packages (dev only), which `npm ci`
# refuses; the locked versions are installed all the same.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# ── The Prisma client (src/generated), generated from prisma/schema.prisma, and dist/ ──────────
FROM deps AS build
COPY prisma.config.ts ./
COPY prisma ./prisma
COPY scripts/build.mjs ./scripts/
COPY src ./src
# `generate:prisma` points the CLI at a stand-in schema engine: generating needs none. The build is
# plain JavaScript on the sources (esbuild, a production dependency): no TypeScript loader at run time.
RUN npm run generate:prisma && npm run build

# ── Runtime ──────────────────────────────────────────────────────────────────────────────────
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
# The migrations are applied on start (dist/db/migrate.js reads prisma/migrations).
COPY prisma ./prisma
COPY --from=build /app/dist ./dist
# `npm start` and `npm run admin` run the build first; without src/ it finds nothing to build.
COPY scripts/build.mjs ./scripts/
# The code stays root's (read-only to the service); only DATA_DIR is the service's.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 4000
# Readiness, as the balancer of compose.yaml checks it (deploy/haproxy.cfg). The slim image has no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `npm start` without npm in between (its build is done): SIGTERM reaches the server itself, which
# drains and exits within SHUTDOWN_TIMEOUT_SECONDS (give the supervisor a stop timeout above it).
STOPSIGNAL SIGTERM
CMD ["node", "dist/server.js"]
