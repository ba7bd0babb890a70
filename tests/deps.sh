#!/bin/sh
# deps.sh: install the Debian packages named on the command line that are
# not installed yet (checked with dpkg -s; apt-get runs only when one is
# missing).  Every make target that needs a package calls this with its own
# list, so `make` needs only the build packages and each test target brings
# what it uses.
#
#   sh tests/deps.sh tcl libsqlite3-tcl
missing=""
for p in "$@"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
# Several targets may install at once: wait for the dpkg lock.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq &&
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq $missing
