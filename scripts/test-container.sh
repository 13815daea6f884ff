#!/usr/bin/env bash
# The container suite (test/container, docs/container.md): builds the image
# from the Dockerfile with podman and runs it as an operator would. Podman
# gets a configuration and storage of its own in a temp folder (nothing is
# cached between runs; all of it is removed at the end): runc, cgroupfs,
# vfs, no default ulimits, which is what runs inside a container such as CI's.
# Skips, saying why, when podman cannot run a container on this machine.
set -uo pipefail
cd "$(dirname "$0")/.."

skip() {
  echo "container suite skipped: $*"
  exit 0
}
for tool in podman podman-compose mmdebstrap runc git; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: apt-get install podman runc podman-compose mmdebstrap)"
done

work=$(mktemp -d /tmp/listings-podman-XXXXXX)
export CONTAINERS_CONF=$work/containers.conf CONTAINERS_STORAGE_CONF=$work/storage.conf
cat >"$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = []
[engine]
tmp_dir = "$work/tmp"
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
cat >"$CONTAINERS_STORAGE_CONF" <<CONF
[storage]
driver = "vfs"
graphroot = "$work/storage"
runroot = "$work/run"
CONF
# Networks are the one thing kept outside $work (in the host's CNI folder): the suite's go too.
cleanup() {
  podman rm -af -t 0 >/dev/null 2>&1
  podman network ls --format '{{.Name}}' | grep -E '^listings-(ct|so)-' | xargs -r podman network rm -f >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

# A container whose root is an empty folder with the host's /usr mounted read-only.
mkdir -p "$work/probe/usr" && ln -s usr/bin "$work/probe/bin" && ln -s usr/lib "$work/probe/lib" \
  && ln -s usr/lib64 "$work/probe/lib64"
probe=$(podman run --rm --network none -v /usr:/usr:ro --rootfs "$work/probe" /usr/bin/true 2>&1) \
  || skip "podman cannot run a container here ($(echo "$probe" | tail -1))"

# image.container.ts builds the image the other files run.
bun test --timeout 900000 ./test/container/image.container.ts ./test/container/replica.container.ts
