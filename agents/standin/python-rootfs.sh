#!/bin/sh
# Writes to $1 a tar of a minimal root filesystem holding this machine's
# Python (interpreter, standard library, the shared libraries they load), for
# `podman import`: the stand-in image's base (agents/standin/Containerfile),
# built without any network. Used by pipeline/agentrecipe's image test.
set -eu
out=$1
py=$(readlink -f "${PYTHON:-/usr/bin/python3}")
ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
stdlib=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
root=$(mktemp -d)
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/bin" "$root/tmp" "$root/etc" "$root/opt" "$root/workspace"
chmod 1777 "$root/tmp"
cp -L "$py" "$root/usr/bin/python$ver"
ln -s "python$ver" "$root/usr/bin/python3"
mkdir -p "$root$stdlib"
( cd "$stdlib" && tar -cf - --exclude=test --exclude=tests --exclude=idlelib --exclude=tkinter --exclude=turtledemo \
    --exclude=ensurepip --exclude=lib2to3 --exclude=__pycache__ --exclude='_tkinter*' --exclude=site-packages --exclude=dist-packages . ) \
  | ( cd "$root$stdlib" && tar -xf - )
libs=$( { ldd "$py"; find "$root$stdlib/lib-dynload" -name '*.so' -exec ldd {} \; ; } 2>/dev/null | grep -o '/[^ ]*' | sort -u)
for l in $libs; do
  [ -e "$l" ] || continue
  mkdir -p "$root$(dirname "$l")"
  cp -L "$l" "$root$l"
done
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
tar -C "$root" -cf "$out" .
