# callfix in a container: a static binary (musl) on an empty base image.
#
#   docker build -t callfix .
#   docker run --rm -v "$PWD:/work" callfix check --format github
#   docker run --rm -i -v "$PWD:/work" callfix -f json < calls.jsonl
#
# The build stage is Alpine, whose Rust targets musl and links statically; the
# image holds only the binary on distroless static (no shell, no libc), and
# runs as an unprivileged user. Paths are read relative to /work (mount the
# project there); callfix never touches the network, but for `mcp --url URL`,
# which reaches that URL (TLS roots built in: the image has no certificate store).

FROM rust:1.88-alpine3.22 AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin callfix \
    && ./target/release/callfix --version

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/target/release/callfix /usr/local/bin/callfix
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/callfix"]
CMD ["--help"]
