# quotient serve as a container image (docs/serve.md "Deploy").
#
#   docker build -t registry.example.com/quotient:0.1.0 .
#   docker run --rm -p 8080:8080 --read-only -v "$PWD/policies/inference-preempts-training:/policy:ro" \
#     registry.example.com/quotient:0.1.0 serve /policy --listen 0.0.0.0:8080 --auth header:X-Remote-User
#
# The image runs as a non-root user and writes nothing at run time, so it runs with a
# read-only root file system. The policy comes from a mounted volume (a ConfigMap, a
# git-sync sidecar's folder): the server watches it and loads each edit.

# --- build: the WebAssembly kernel and dist/, then only the production dependencies ---
FROM node:20.20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY asconfig.json tsconfig.json ./
COPY assembly ./assembly
COPY src ./src
# npm ci runs `prepare`, which builds build/kernel.wasm and dist/.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

# --- kubectl, for --snapshot-command 'kubectl get nodes,pods -A -o json' (checked against its published SHA-256) ---
FROM debian:bookworm-slim AS kubectl
ARG KUBECTL_VERSION=v1.31.4
ARG TARGETARCH=amd64
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && curl -fsSLo /kubectl "https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/linux/${TARGETARCH}/kubectl" \
 && curl -fsSLo /kubectl.sha256 "https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/linux/${TARGETARCH}/kubectl.sha256" \
 && echo "$(cat /kubectl.sha256)  /kubectl" | sha256sum -c - \
 && chmod 0755 /kubectl

# --- run ---
FROM node:20.20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/build/kernel.wasm ./build/kernel.wasm
COPY schemas ./schemas
COPY policies ./policies
COPY --from=kubectl /kubectl /usr/local/bin/kubectl
RUN ln -s /app/dist/cli/main.js /usr/local/bin/quotient && chmod 0755 /app/dist/cli/main.js
# The node image's unprivileged user (uid 1000); nothing in /app is writable by it.
USER 1000:1000
EXPOSE 8080
ENTRYPOINT ["quotient"]
CMD ["serve", "/policy", "--listen", "0.0.0.0:8080", "--auth", "header:X-Remote-User"]
