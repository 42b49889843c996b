# syntax=docker/dockerfile:1
# The baton App as a container image:
#   docker build -t baton .
#   docker run -p 3000:3000 -e APP_ID=… -e PRIVATE_KEY="$(cat key.pem)" -e WEBHOOK_SECRET=… baton
# Everything the App needs is in dist/app.js (Probot bundled in): the image is Node.js and
# four files and folders, run as the unprivileged `node` user. docs/operations.md, "Container".

# The base image by digest: a tag (`node:24-slim`) can be moved to another image, a digest cannot.
# node:24-slim (Node.js 24.19.0, Debian bookworm), its multi-platform index as the Docker Official
# Images record it (docker-library/repo-info, repos/node/remote/24-slim.md, 2026-08-03). To move
# it: `docker buildx imagetools inspect node:24-slim` and replace both digests (a test holds them equal).

# Build: the bundles, from exactly what the lockfile says, running none of the dependencies'
# install scripts (the bundles build the same without them).
FROM node:24-slim@sha256:cd84903a12dbd26b46f1f3b8144a2568c41c5d37ddd0c7a80a34c7a19786b35f AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# Run: no npm install at run time, no build tools, no shell needed.
FROM node:24-slim@sha256:cd84903a12dbd26b46f1f3b8144a2568c41c5d37ddd0c7a80a34c7a19786b35f
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
