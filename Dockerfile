# natsperf in a container: a static binary on distroless/static (CA certificates, /etc/passwd with
# the nonroot user, nothing else). Build:  docker build -t natsperf:dev --build-arg VERSION=v0.1.0 .
# The same image runs agents, the coordinator and one-off benchmarks (deploy/helm/natsperf).

# The builder's Go must be at least go.mod's `go` line.
ARG GO_VERSION=1.26
FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Modules first, so a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
# CGO_ENABLED=0: a static binary for an image with no libc. -trimpath: no build paths in it.
# -buildvcs=false: the build context has no .git (see .dockerignore); VERSION says the version.
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/natsperf/natsperf/internal/version.Version=${VERSION}" \
      -o /out/natsperf ./cmd/natsperf

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/natsperf /usr/local/bin/natsperf
# 65532 is distroless's nonroot user; numeric so Kubernetes' runAsNonRoot can check it.
USER 65532:65532
WORKDIR /home/nonroot
ENTRYPOINT ["/usr/local/bin/natsperf"]
CMD ["--help"]
