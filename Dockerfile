# syntax=docker/dockerfile:1
# Build:  docker build -t device-registry .
# Run:    see docker-compose.yml (needs PostgreSQL and the secrets it names).
#
# The image holds one file of ours, /usr/local/bin/device-registry: the migrations and
# openapi.yaml are compiled into it and the Swift runtime is linked statically, so the runtime
# stage needs only libpq, libcrypto and CA certificates. scripts/smoke-serve runs that layout (the
# binary alone in an empty folder) on every CI run.

# The toolchain CI tests with (`swift --version` there); scripts/check-deploy keeps them equal.
ARG SWIFT_VERSION=6.3.1

# ---- build: full toolchain plus the -dev headers for the libpq and libcrypto system targets
FROM swift:${SWIFT_VERSION}-bookworm AS build
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libpq-dev libssl-dev zlib1g-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
# Dependencies first, so editing our sources does not re-fetch them. The versions are the ones
# Package.resolved pins, the ones CI tested: never whatever is newest on the day of the build.
COPY Package.swift Package.resolved ./
RUN swift package resolve --force-resolved-versions
# Tests/ too: the manifest declares test targets and SwiftPM checks that their folders exist.
# Migrations/ and openapi.yaml are build inputs: the EmbedResources plugin compiles them in.
COPY Plugins ./Plugins
COPY Sources ./Sources
COPY Tests ./Tests
COPY Migrations ./Migrations
COPY openapi.yaml ./
RUN swift build -c release --static-swift-stdlib --force-resolved-versions --product device-registry \
    && cp "$(swift build -c release --static-swift-stdlib --show-bin-path)/device-registry" /build/device-registry

# ---- runtime: the shared libraries the binary links and nothing else
FROM debian:bookworm-slim
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libpq5 libssl3 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin registry
COPY --from=build /build/device-registry /usr/local/bin/device-registry
# Numeric, so orchestrators that insist on a non-root uid can check it.
USER 10001:10001
ENV HOST=0.0.0.0 \
    PORT=8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/device-registry", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/device-registry"]
CMD ["serve"]
