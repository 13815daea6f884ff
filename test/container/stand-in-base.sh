#!/usr/bin/env bash
# Builds a stand-in for the `oven/bun:1` and `oven/bun:1-slim` base images where
# the public image registry cannot be reached: a minimal Debian root file system
# (mmdebstrap, from Debian's packages) plus Bun from the npm `bun` package,
# laid out as the real images are (bun and bunx in /usr/local/bin, user and
# group `bun` with id 1000, the same entrypoint), then tagged with the
# Dockerfile's base names so `podman build` finds them locally.
#   usage: stand-in-base.sh BUN_BINARY
# Needs: podman (configured by the caller), mmdebstrap.
set -euo pipefail
bun_binary=$1
suite=${DEBIAN_SUITE:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What debian:*-slim leaves out: documentation, manual pages and translations.
mmdebstrap --quiet --variant=minbase --include=ca-certificates \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  "$suite" "$work/rootfs.tar" "deb $mirror $suite main" </dev/null
podman import --quiet "$work/rootfs.tar" localhost/stand-in-debian:"$suite" >/dev/null

cp "$bun_binary" "$work/bun"
# The entrypoint of the real images: a first argument that is an option or no command runs bun.
cat >"$work/docker-entrypoint.sh" <<'SH'
#!/bin/sh
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ]; then
  set -- /usr/local/bin/bun "$@"
fi
exec "$@"
SH
cat >"$work/Containerfile" <<CONTAINERFILE
FROM localhost/stand-in-debian:$suite
COPY --chmod=755 bun docker-entrypoint.sh /usr/local/bin/
RUN ln -s /usr/local/bin/bun /usr/local/bin/bunx \
 && groupadd bun --gid 1000 \
 && useradd bun --uid 1000 --gid bun --shell /bin/sh --create-home \
 && mkdir -p /home/bun/app && chown bun:bun /home/bun/app
WORKDIR /home/bun/app
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["/usr/local/bin/bun"]
CONTAINERFILE
podman build --quiet --network none -t docker.io/oven/bun:1 -t docker.io/oven/bun:1-slim "$work" >/dev/null
podman rmi localhost/stand-in-debian:"$suite" >/dev/null
echo "stand-in base: Debian $suite (mmdebstrap) + Bun $("$bun_binary" --version) from the npm package"
