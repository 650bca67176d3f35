# syntax=docker/dockerfile:1
# Build:  docker build -t device-registry .
# Run:    see docker-compose.yml (needs PostgreSQL and REGISTRY_ADMIN_KEY).

ARG SWIFT_VERSION=6.1

# ---- build: full toolchain plus the -dev headers for the libpq and libcrypto system targets
FROM swift:${SWIFT_VERSION}-bookworm AS build
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libpq-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
# Dependencies first, so editing our sources does not re-fetch them.
COPY Package.* ./
RUN swift package resolve
# Tests/ too: the manifest declares test targets and SwiftPM checks that their folders exist.
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product device-registry \
    && cp "$(swift build -c release --show-bin-path)/device-registry" /build/device-registry

# ---- runtime: the Swift runtime libraries without the compiler, plus the shared libraries we link
FROM swift:${SWIFT_VERSION}-bookworm-slim
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libpq5 libssl3 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /app --shell /usr/sbin/nologin registry
WORKDIR /app
COPY --from=build /build/device-registry /app/device-registry
# The binary looks for its migrations beside itself.
COPY Migrations /app/Migrations
# Numeric, so orchestrators that insist on a non-root uid can check it.
USER 10001:10001
ENV HOST=0.0.0.0 \
    PORT=8080
EXPOSE 8080
ENTRYPOINT ["/app/device-registry"]
CMD ["serve"]
