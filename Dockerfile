# syntax=docker/dockerfile:1
# Tabula: build a static-stdlib release binary, run it on Debian slim as a non-root user.
# The runtime stage is rebuilt outside Docker by Scripts/container-smoke-test, which reads
# this file: keep its COPY, USER, ENV, WORKDIR, ENTRYPOINT, CMD and HEALTHCHECK lines simple.

FROM swift:6.3.1-bookworm AS build
# Unpinned: bookworm's security updates replace these versions, and a pin would break the build.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libmicrohttpd-dev libsqlite3-dev libpq-dev libcurl4-openssl-dev libicu72 pkg-config curl \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
# Resolve packages in their own layer, so that a source change does not fetch them again.
COPY Package.swift ./
RUN swift package resolve
COPY openapi.json ./
COPY Plugins ./Plugins
COPY Sources ./Sources
COPY Tests ./Tests
COPY Benchmarks ./Benchmarks
# Profile-guided: an instrumented build serves a training load (curl, on loopback, the
# bundled Fixtures), then the release build uses its profile (docs/development.md).
COPY Scripts ./Scripts
COPY Fixtures ./Fixtures
RUN Scripts/build-release --scratch-path .build tabula \
    && install -D -s -m 0755 .build/release/tabula /out/tabula

FROM debian:bookworm-slim AS runtime
# The binary links libmicrohttpd and SQLite dynamically (see `ldd`), and loads with dlopen
# libpq for --store postgres, libcurl (libcurl4) for outbound HTTP calls, libcrypto (libssl3)
# when it first hashes a session token, and ICU (libicu72) when the screens have string
# tables; the Swift runtime is inside it.
# Unpinned for the same reason as above.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libmicrohttpd12 libsqlite3-0 libpq5 libcurl4 libssl3 libicu72 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 tabula \
    && useradd --uid 10001 --gid tabula --home-dir /var/lib/tabula --shell /usr/sbin/nologin tabula \
    && install -d -o tabula -g tabula -m 0750 /var/lib/tabula
COPY --from=build /out/tabula /usr/local/bin/tabula
COPY Fixtures /srv/tabula/Fixtures
ENV TABULA_HOST=0.0.0.0 \
    TABULA_PORT=8080 \
    TABULA_SCREENS=/srv/tabula/Fixtures/screens \
    TABULA_DATA_DIR=/var/lib/tabula \
    TABULA_SHUTDOWN_GRACE=8
WORKDIR /var/lib/tabula
VOLUME ["/var/lib/tabula"]
# Numeric, so that orchestrators can verify "not root" without reading /etc/passwd.
USER 10001:10001
EXPOSE 8080
# Tabula drains requests in progress on SIGTERM for TABULA_SHUTDOWN_GRACE (8 s), inside Docker's 10 s.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=4s --start-period=5s --retries=3 CMD ["tabula", "healthcheck"]
ENTRYPOINT ["tabula"]
CMD ["serve"]
