# The service as it runs in production: NODE_ENV=production requires JWT_PRIVATE_KEY, MASTER_KEY
# and SMTP_URL (see README, Configuration).
# The pages (contract §11) are built with the dev tools in a stage of their own; only web/dist is kept.
FROM node:24-bookworm-slim AS pages
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web ./web
RUN npm run build:web

FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY --from=pages /app/web/dist ./web/dist
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
EXPOSE 3000
USER node
# The pages are built above: no prestart build at run time.
CMD ["npm", "start", "--ignore-scripts"]
