# The service as it runs in production: NODE_ENV=production requires JWT_PRIVATE_KEY, MASTER_KEY
# and SMTP_URL (see README, Configuration).
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
EXPOSE 3000
USER node
CMD ["npm", "start"]
