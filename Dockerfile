# syntax=docker/dockerfile:1
# The app as a production image: built in one stage, run in another with production dependencies
# only, as the unprivileged `node` user. Written for the npm workspace layout: the app at the root,
# packages/block-kit and packages/adk-approvals production dependencies, packages/slack-sandbox
# and packages/demo dev-only.
# Build: docker build -t adk-slack-approvals .   Run: see compose.yaml and docs/deploy.md.
# Node 24 by default: Node 20 reached its end of life in April 2026, and on Node 24 the correlation
# ids' AsyncLocalStorage no longer runs a hook for every promise (docs/performance.md: app CPU per
# decision about a third lower in the app bench). The app still runs on Node 20 and 22:
# --build-arg NODE_VERSION=20.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# Manifests first: the install layer is reused until a manifest or the lockfile changes.
COPY package.json package-lock.json ./
COPY packages/block-kit/package.json packages/block-kit/
COPY packages/slack-sandbox/package.json packages/slack-sandbox/
COPY packages/demo/package.json packages/demo/
COPY packages/adk-approvals/package.json packages/adk-approvals/
# `npm install`, not `npm ci`: the lockfile is made where the registry lacks Biome's binaries for
# other platforms, and `npm ci` insists on finding them in it. The pinned versions are honoured.
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/ packages/
COPY src/ src/
# `npm run build` builds the workspace packages first, then the app.
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/block-kit/package.json packages/block-kit/
COPY packages/adk-approvals/package.json packages/adk-approvals/
# The root, block-kit and adk-approvals (the attestation the app and the plugin share) only:
# the sandbox, the demo agents and every devDependency stay out.
# The ADK SDK is an optional peer of adk-approvals and a devDependency of the root: it stays out
# (the app imports only the plugin's dependency-free attestation). --omit=optional too, for the
# optional packages that dev packages share in the lockfile. `npm run test:install` checks the
# result (128 packages, 25 MB; 288 packages, 138 MB while the SDK came along).
RUN npm install --omit=dev --omit=optional --workspace=packages/block-kit \
      --workspace=packages/adk-approvals --include-workspace-root \
      --no-audit --no-fund --ignore-scripts \
    && npm cache clean --force
COPY --from=build /app/packages/block-kit/ packages/block-kit/
COPY --from=build /app/packages/adk-approvals/ packages/adk-approvals/
COPY --from=build /app/dist/ dist/
# `npx adk-slack-approvals policy|audit …`: the command runs the built dist/ (no src/ here).
COPY bin/ bin/
USER node
EXPOSE 3000
# /healthz answers while the process runs (readiness, /readyz, also needs Redis and ADK).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM: the app stops taking work and finishes what is in flight (up to 10 s).
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
