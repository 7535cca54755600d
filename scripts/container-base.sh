#!/usr/bin/env bash
# Builds a local Node runtime base image from this host's node binary and the shared libraries it links (ldd), for
# machines that reach no container registry; deploy/Containerfile then builds with --build-arg BASE=<image>.
#
# usage: scripts/container-base.sh [IMAGE] [ELF ...]
#   IMAGE  default localhost/svc-node-base:host
#   ELF    more binaries whose libraries to add (e.g. the bundles' *.node addons)
# env:     BUILDAH_ARGS  global buildah options, e.g. "--storage-driver vfs --root DIR --runroot DIR"
#
# The image holds /usr/local/bin/node, its libraries at their host paths, glibc's files/dns name-service modules,
# /etc/passwd and /etc/group with root and nonroot (65532), and a world-writable /tmp. No shell, no package manager.
set -euo pipefail
image=${1:-localhost/svc-node-base:host}
shift || true
node=$(readlink -f "$(command -v node)")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc" "$rootfs/tmp" "$rootfs/home/nonroot"
cp "$node" "$rootfs/usr/local/bin/node"

copy() { # a file at its own path inside the image, symlinks resolved
  mkdir -p "$rootfs$(dirname "$1")"
  cp -L "$1" "$rootfs$1"
}
libraries() { # the absolute paths ldd names: "libx.so => /path (addr)" and the loader "/lib64/ld-linux... (addr)"
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
}
for elf in "$node" "$@"; do
  for lib in $(libraries "$elf"); do copy "$lib"; done
done
# loaded at run time by getaddrinfo, not linked
libdir=$(dirname "$(ldd "$node" | awk '$1 ~ /^libc\.so/ { print $3 }')")
for nss in "$libdir"/libnss_files.so.2 "$libdir"/libnss_dns.so.2 "$libdir"/libresolv.so.2; do
  [ -e "$nss" ] && copy "$nss"
done

printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/usr/sbin/nologin\n' \
  >"$rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$rootfs/etc/group"
printf 'hosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
chmod 1777 "$rootfs/tmp"
chown 65532:65532 "$rootfs/home/nonroot"

cat >"$work/Containerfile" <<'CONTAINERFILE'
FROM scratch
COPY rootfs/ /
ENV PATH=/usr/local/bin HOME=/home/nonroot
CONTAINERFILE
# shellcheck disable=SC2086 # BUILDAH_ARGS is a list of options
buildah ${BUILDAH_ARGS:-} bud --isolation chroot --layers=false -t "$image" -f "$work/Containerfile" "$work"
echo "container-base: $image from $node ($("$node" --version))"
