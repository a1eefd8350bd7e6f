# The `racing` command in a container (used by docker-compose.yml for `racing start` and `racing registry`).
#   docker build -t racing-analytics:local .
#   docker run --rm -p 3000:3000 racing-analytics:local start      # embedded mode, data in /var/lib/racing

# --- build: compile TypeScript, then keep only the production dependencies ----------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` (tsc) needs the sources, copied below; install scripts run in `npm rebuild`
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY schemas ./schemas
COPY domain ./domain
COPY streams ./streams
COPY state ./state
COPY api ./api
COPY cli ./cli
RUN npm run build \
 && npm rebuild \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# --- runtime -----------------------------------------------------------------------------------------
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    RACING_DATA_DIR=/var/lib/racing \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# read at run time: the Avro schemas (serde, API row schema, data dictionary)
COPY --from=build /app/schemas ./schemas
RUN chmod 0755 dist/cli/racing.js \
 && ln -s /app/dist/cli/racing.js /usr/local/bin/racing \
 && mkdir -p /var/lib/racing \
 && chown node:node /var/lib/racing
# the image's unprivileged user (uid 1000); the data dir is the only writable place it needs
USER node
VOLUME ["/var/lib/racing"]
EXPOSE 3000 8081
ENTRYPOINT ["racing"]
CMD ["start"]
