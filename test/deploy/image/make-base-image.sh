#!/usr/bin/env bash
# Makes the base image the image tests build the Dockerfile on, since registry images cannot
# be pulled here: a minimal Debian bookworm from debootstrap (what node:20-bookworm-slim is
# built on), with this machine's Node and npm in /usr/local, and this machine's CA bundle so
# that npm inside the build reaches the registry the way the machine does. Imported as
# localhost/gatehouse-test-base:<hash of the inputs>; when that image exists it is reused.
# Prints the image reference on stdout; progress goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export CONTAINERS_CONF="$here/containers.conf"
podman() { command podman --runtime /usr/sbin/runc --cgroup-manager=cgroupfs "$@"; }

node_bin="$(readlink -f "$(command -v node)")"
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
ca_bundle=/etc/ssl/certs/ca-certificates.crt
suite=bookworm
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

hash="$( { cat "$0"; echo "$suite"; sha256sum "$node_bin"; cat "$npm_dir/package.json"; cat "$ca_bundle" 2>/dev/null || true; } | sha256sum | cut -c1-16)"
image="localhost/gatehouse-test-base:$hash"
if podman image exists "$image"; then
  echo "base image $image is present" >&2
  echo "$image"
  exit 0
fi

work="$(mktemp -d /var/tmp/gatehouse-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
echo "debootstrap $suite into $work (about a minute)" >&2
debootstrap --variant=minbase "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
root="$work/rootfs"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

install -D -m 0755 "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules" "$root/usr/local/etc"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
if [ -f "$ca_bundle" ]; then
  install -D -m 0644 "$ca_bundle" "$root/usr/local/share/gatehouse-test-ca.crt"
  printf 'cafile=/usr/local/share/gatehouse-test-ca.crt\nupdate-notifier=false\n' >"$root/usr/local/etc/npmrc"
fi

echo "importing $image" >&2
tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$image" >&2
echo "$image"
