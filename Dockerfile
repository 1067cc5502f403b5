# Gatehouse container image. Two stages: `build` compiles src/ to dist/ with the full
# toolchain, then drops the dev dependencies; the runtime stage holds dist/, bin/ and the
# production dependencies only, runs as an unprivileged user, and needs no writable path
# but its state volume (/var/lib/gatehouse) and /tmp, so it runs with a read-only root.
#
#   docker build -t gatehouse .                          (or podman build)
#   docker build --build-arg BASE=node:22-bookworm-slim -t gatehouse .
#
# BASE is any Node >= 20.18 image with a POSIX shell. tini (PID 1: forwards signals, reaps
# orphaned grandchildren of stdio upstreams) is taken from the base when it has it, and
# otherwise installed with apt-get (Debian-based bases).
ARG BASE=node:20-bookworm-slim

FROM ${BASE} AS build
WORKDIR /src
RUN if [ ! -x /usr/bin/tini-static ]; then \
      apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*; \
    fi
# Dependencies first: this layer is reused until the lock file changes.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${BASE}
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="Gatehouse" \
      org.opencontainers.image.description="An MCP gateway: one endpoint in front of many MCP servers, with identity, policy, approvals and audit." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="Apache-2.0"

# A fixed numeric user (and group), so Kubernetes can check runAsNonRoot; no login, no home.
RUN echo 'gatehouse:x:10001:10001:Gatehouse:/nonexistent:/usr/sbin/nologin' >> /etc/passwd \
 && echo 'gatehouse:x:10001:' >> /etc/group \
 && mkdir -p /etc/gatehouse /var/lib/gatehouse \
 && chown 10001:10001 /var/lib/gatehouse

COPY --from=build /usr/bin/tini-static /usr/local/bin/tini
WORKDIR /app
COPY --from=build /src/package.json /src/LICENSE ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/bin ./bin
COPY --from=build /src/schema ./schema

ENV NODE_ENV=production \
    GATEHOUSE_HEALTHCHECK_URL=http://127.0.0.1:8080/healthz
USER 10001:10001
# Audit files and other state: mount a volume here (the root filesystem may be read-only).
VOLUME ["/var/lib/gatehouse"]
EXPOSE 8080
STOPSIGNAL SIGTERM
# No curl in the image: Node's own fetch. Set GATEHOUSE_HEALTHCHECK_URL when the config
# listens on another port.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.GATEHOUSE_HEALTHCHECK_URL).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini without -g: SIGTERM goes to node alone, which drains and stops its stdio children itself.
ENTRYPOINT ["/usr/local/bin/tini", "--", "node", "/app/bin/gatehouse.js"]
CMD ["serve", "--config", "/etc/gatehouse/gatehouse.yaml"]
