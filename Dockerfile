# One container: the API, embedded SQLite on the /data volume, in-process workers.
FROM oven/bun:1 AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. Bun comes from the base image: the npm `bun`
# package is a devDependency (it serves `npm start` where only Node is
# installed). Packages that hold nothing but TypeScript types or the compiler
# (installed as peers of elysia and drizzle) are never loaded at run time.
# Optional dependencies stay: @flydotio/litestream-linux-x64 carries the
# litestream binary the server starts under when REPLICA_URL is set.
RUN bun install --production --ignore-scripts \
 && rm -rf node_modules/.bin node_modules/typescript node_modules/@typescript \
      node_modules/@types node_modules/bun-types node_modules/undici-types

FROM oven/bun:1-slim
WORKDIR /app
# BUN_JSC_forceRAMSize: the JavaScript heap is collected as if the machine had
# 256 MiB, so it stays near what it holds; collecting everything each time
# only past 90 % of that (docs/performance.md, Memory). LISTINGS_COMMAND_PREFIX:
# the image has no npm, so hints the server prints write `bun run user:create …`.
ENV NODE_ENV=production \
    LISTINGS_COMMAND_PREFIX="bun run" \
    BUN_JSC_forceRAMSize=268435456 \
    BUN_JSC_criticalGCMemoryThreshold=0.9 \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATABASE_PATH=/data/app.db
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY migrations ./migrations
COPY third-party ./third-party
# The operator commands (bun run user:create, token, pages:import, backup,
# restore, demo, migrate-to-postgres) with the modules they share; the
# development scripts are left out by .dockerignore. content/ holds the
# example pages `bun run demo` imports.
COPY scripts ./scripts
COPY content ./content
# /replica: where a second volume takes a file:// replica (REPLICA_URL=file:///replica).
# A new named volume takes the ownership of the folder it is mounted on, so
# both are the service's user's; without the folder Docker mounts the volume
# owned by root and Litestream cannot write to it.
RUN mkdir -p /data /replica && chown -R bun:bun /data /replica
USER bun
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD bun -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# With REPLICA_URL set, this process restores a missing database from the
# replica and runs the server under `litestream replicate -exec`
# (docs/operations.md, Replication with Litestream); without it, the server.
CMD ["bun", "--smol", "src/index.ts"]
