#!/bin/sh
# testsuites.sh PYTHON...
#
# Gives Debian-packaged interpreters the regression tests their `test`
# package lacks (Debian ships only test.support and test.libregrtest with
# the interpreter), for `make check-cpython`:
#   /usr/bin/python3.X (Debian 12): apt-get install libpython3.X-testsuite
#     (as root; it upgrades python3.X to the same Debian revision if older);
#   DEST/root/usr/bin/python3.X as unpacked by the debian-pythons script
#     (Debian unstable's packages with their own glibc under DEST, which
#     holds the Packages index it read): libpython3.X-testsuite from the
#     same index, unpacked into DEST/root the same way.
# Interpreters that already have test.test_os are left alone; anything
# else is reported on a SKIP line and left to check-cpython.sh to skip.
set -u
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

has_tests() {
    "$1" -c 'import importlib.util, sys
sys.exit(importlib.util.find_spec("test.test_os") is None)' 2>/dev/null
}

# The pool path of package $1 in the Packages index $2 (empty if absent).
pool_path() {
    awk -v p="$1" '$0 == "Package: " p {f = 1} f && /^Filename: / {print $2; exit} /^$/ {f = 0}' "$2"
}

for py in "$@"; do
    [ -x "$py" ] || continue
    has_tests "$py" && continue
    minor=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])') || continue
    pkg="libpython$minor-testsuite"
    case $py in
    /usr/bin/python3*)
        if [ "$(id -u)" != 0 ]; then
            echo "SKIP: $py has no regression tests; install $pkg (as root)"
            continue
        fi
        echo "installing $pkg for $py"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null ||
            { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
                apt-get install -y -qq "$pkg" >/dev/null; }
        ;;
    */root/usr/bin/python3*)
        dest=${py%/root/usr/bin/*}
        f=
        [ -s "$dest/Packages" ] && f=$(pool_path "$pkg" "$dest/Packages")
        if [ -z "$f" ]; then
            echo "SKIP: $py has no regression tests and $dest/Packages does not list $pkg"
            continue
        fi
        deb="$dest/debs/${f##*/}"
        echo "unpacking $pkg into $dest/root for $py"
        if [ ! -s "$deb" ]; then
            curl -fsS -o "$deb.part" "$mirror/$f" && mv "$deb.part" "$deb" ||
                { echo "SKIP: $py: cannot download $mirror/$f"; continue; }
        fi
        dpkg-deb -x "$deb" "$dest/root"
        ;;
    esac
    has_tests "$py" || echo "SKIP: $py still has no test.test_os"
done
exit 0
