#!/bin/sh
# Usage: scripts/ensure-debian-package.sh PACKAGE WHY [PROGRAM] [TYPICAL_SIZE]
#
# Installs a Debian package with apt-get, but only after saying what will be installed
# and why: installing system packages as root is not something a `make` target should
# do behind a learner's back. Nothing happens when PROGRAM (default /usr/bin/PACKAGE)
# is already there. TYPICAL_SIZE (e.g. "about 130 packages") is shown when apt-get
# cannot count the packages yet (no package lists before the first apt-get update).
#
#   on a terminal            asks "Install PACKAGE now? [y/N]"
#   CI=true or ASSUME_YES=1  installs without asking (CI machines are disposable)
#   otherwise                refuses, prints the command to run, exits 1
set -eu

usage="usage: $0 PACKAGE WHY [PROGRAM] [TYPICAL_SIZE]"
package=${1:?$usage}
why=${2:?$usage}
program=${3:-/usr/bin/$package}
typical=${4:-}

[ -x "$program" ] && exit 0

if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
count=$(apt-get install --simulate "$package" 2>/dev/null | grep -c '^Inst ' || true)
case $count in
    '' | 0) size=${typical:+ ($typical)} ;;
    *) size=" ($count packages in all, per apt-get --simulate)" ;;
esac
command="${sudo:+sudo }apt-get update && ${sudo:+sudo }apt-get install -y $package"

echo "$program is missing and $why needs it. This step installs the Debian package" \
     "'$package' and the packages it depends on$size, system-wide with apt-get as" \
     "root${sudo:+ (through sudo)}:" | fold -s -w 88
echo "    $command"

if [ "${CI:-}" = true ] || [ "${ASSUME_YES:-}" = 1 ]; then
    echo "Installing without asking (CI=${CI:-} ASSUME_YES=${ASSUME_YES:-})."
elif [ -t 0 ]; then
    printf 'Install %s now? [y/N] ' "$package"
    read -r answer || answer=
    case $answer in
        [yY] | [yY][eE][sS]) ;;
        *) echo "Not installed. Run the command above yourself, or re-run with ASSUME_YES=1."; exit 1 ;;
    esac
else
    echo "Refusing to install without a terminal to ask on. Run the command above yourself," \
         "or re-run with ASSUME_YES=1 (CI=true also counts as yes)." >&2
    exit 1
fi

$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "$package"
