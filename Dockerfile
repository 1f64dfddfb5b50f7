# One image for every munim process; SERVICE picks which one runs
# (gateway, router, agent, validator, mcp-executor, logger, or demo-books).
FROM node:24-slim AS build
WORKDIR /app
RUN npm install -g pnpm@10.34.9
COPY . .
RUN pnpm install --frozen-lockfile --prod

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app /app
USER node
ENV SERVICE=gateway
ENTRYPOINT ["sh", "-c", "if [ \"$SERVICE\" = demo-books ]; then exec node infra/demo-books/src/main.ts; else exec node services/$SERVICE/src/main.ts; fi"]
