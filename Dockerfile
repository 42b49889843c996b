# syntax=docker/dockerfile:1
# The baton App as a container image:
#   docker build -t baton .
#   docker run -p 3000:3000 -e APP_ID=… -e PRIVATE_KEY="$(cat key.pem)" -e WEBHOOK_SECRET=… baton
# Everything the App needs is in dist/app.js (Probot bundled in): the image is Node.js and
# four files and folders, run as the unprivileged `node` user. docs/operations.md, "Container".

# Build: the bundles, from exactly what the lockfile says.
FROM node:24-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Run: no npm install at run time, no build tools, no shell needed.
FROM node:24-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build /build/package.json /build/app.yml ./
COPY --from=build /build/dist/app.js ./dist/app.js
COPY --from=build /build/workflows-library ./workflows-library
USER node
EXPOSE 3000
# Probot's own /ping answers PONG once the server listens.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/ping').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/app.js"]
