# syntax=docker/dockerfile:1
# One image for every munim process; SERVICE picks which one runs (gateway, router, agent, validator,
# mcp-executor, logger, messaging, or demo-books); `migrate` brings the schema up to date, then creates
# or updates the JetStream streams when NATS_URL is set.
# Checked offline by test/deploy/dockerfile.test.ts.

# Production dependencies, from the manifests and the lockfile alone: a change of source reuses this layer.
FROM node:24-slim AS deps
WORKDIR /app
RUN npm install -g pnpm@10.34.9
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY patches/ patches/
# Every workspace project's manifest, or the frozen lockfile does not match the workspace.
COPY packages/attachments/package.json packages/attachments/
COPY packages/bus/package.json packages/bus/
COPY packages/cli/package.json packages/cli/
COPY packages/contracts/package.json packages/contracts/
COPY packages/db/package.json packages/db/
COPY packages/devstack/package.json packages/devstack/
COPY packages/finance/package.json packages/finance/
COPY packages/kit/package.json packages/kit/
COPY packages/scripted-llm/package.json packages/scripted-llm/
COPY packages/testkit/package.json packages/testkit/
COPY services/agent/package.json services/agent/
COPY services/gateway/package.json services/gateway/
COPY services/logger/package.json services/logger/
COPY services/mcp-executor/package.json services/mcp-executor/
COPY services/messaging/package.json services/messaging/
COPY services/router/package.json services/router/
COPY services/validator/package.json services/validator/
COPY infra/demo-books/package.json infra/demo-books/
# Only what the runnable projects need at run time: no devDependencies, no dev-only workspace packages.
RUN pnpm install --frozen-lockfile --prod --filter "{./services/*}..." --filter "{./infra/demo-books}..."

# What runs: node, the production node_modules, and the sources node runs directly (it strips the types).
FROM node:24-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app ./
COPY packages/attachments/src packages/attachments/src
COPY packages/bus/src packages/bus/src
COPY packages/contracts/src packages/contracts/src
COPY packages/db/src packages/db/src
COPY packages/finance/src packages/finance/src
COPY packages/kit/src packages/kit/src
COPY services/agent/src services/agent/src
COPY services/gateway/src services/gateway/src
COPY services/gateway/public services/gateway/public
COPY services/logger/src services/logger/src
COPY services/mcp-executor/src services/mcp-executor/src
COPY services/messaging/src services/messaging/src
COPY services/router/src services/router/src
COPY services/validator/src services/validator/src
COPY infra/demo-books/src infra/demo-books/src
# The image's `node` user by number, so Kubernetes' runAsNonRoot can verify it is not root.
USER 1000:1000
# The gateway answers on PORT and messaging on MESSAGING_PORT (probes beside their HTTP); every other
# service's liveness and readiness answer on HEALTH_PORT.
ENV SERVICE=gateway HEALTH_PORT=9090
EXPOSE 8080 8090 9090
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "packages/kit/src/healthcheck.ts"]
ENTRYPOINT ["sh", "-c", "if [ \"$SERVICE\" = demo-books ]; then exec node infra/demo-books/src/main.ts; elif [ \"$SERVICE\" = migrate ]; then node packages/db/src/migrate-main.ts && exec node packages/kit/src/migrate-streams.ts; else exec node services/$SERVICE/src/main.ts; fi"]
