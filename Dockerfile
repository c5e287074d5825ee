# The service image: dependencies installed in one stage (production only), the source copied into
# a slim runtime that runs as the unprivileged node user. TypeScript runs through tsx, as `npm start` does.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# The web console, built with the dev dependencies (Vite, React) into web/dist; only the build is kept.
FROM node:22-bookworm-slim AS web
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web ./web
RUN npm run build:console

FROM node:22-bookworm-slim
ENV NODE_ENV=production DATA_DIR=/data PORT=3000 HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY domain ./domain
COPY adapters ./adapters
COPY ingestion ./ingestion
COPY projections ./projections
COPY queries ./queries
COPY commands ./commands
COPY workers ./workers
COPY api ./api
COPY app ./app
COPY scripts ./scripts
COPY --from=web /app/web/dist ./web/dist
# DATA_DIR holds uploaded files only on the embedded database; with DATABASE_URL they are in the database.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--import", "tsx", "app/main.ts"]
