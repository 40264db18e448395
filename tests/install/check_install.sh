#!/bin/sh
# Install the build into a temporary prefix, build a program against it with pkg-config
# (shared and static), run both, and check the installed tool and data.
#   check_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 src=$2
prefix=$(mktemp -d /tmp/sbinstall.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc "$src/tests/install/consumer.c" -o "$prefix/consumer" $(pkg-config --cflags --libs stackbench) \
	-Wl,-rpath,"$prefix/lib"
cc "$src/tests/install/consumer.c" -o "$prefix/consumer-static" \
	$(pkg-config --cflags stackbench) "$prefix/lib/libstackbench.a" \
	$(pkg-config --libs-only-L --libs-only-l --static stackbench | sed 's/-lstackbench//')
"$prefix/consumer" | grep -q ': 9 ports$'
"$prefix/consumer-static" | grep -q ': 9 ports$'
"$prefix/bin/stackbench" --version | grep -q '^stackbench '
for f in profiles/hmc-gen2-ac510.yaml devices/tsmc-n5.yaml; do
	test -f "$prefix/share/stackbench/$f" || { echo "missing share/stackbench/$f"; exit 1; }
done
for h in stackbench.h device.h sb_regmap.h instrument.h lifetime.h campaign.h; do
	test -f "$prefix/include/stackbench/$h" || { echo "missing include/stackbench/$h"; exit 1; }
done
# the daemon, its systemd unit (pointing at the installed daemon), the udev rules
test -x "$prefix/bin/stackbenchd" || { echo "missing bin/stackbenchd"; exit 1; }
unit=$prefix/lib/systemd/system/stackbenchd.service
test -f "$unit" || { echo "missing lib/systemd/system/stackbenchd.service"; exit 1; }
grep -q '^Type=notify$' "$unit" || { echo "the unit is not Type=notify"; exit 1; }
for r in 60-stackbench.rules 61-stackbench-instruments.rules; do
	test -f "$prefix/share/stackbench/udev/$r" || { echo "missing share/stackbench/udev/$r"; exit 1; }
done
# man pages (one per command) and bash completion
for m in stackbench stackbench-run stackbench-point stackbench-report; do
	test -f "$prefix/share/man/man1/$m.1" || { echo "missing share/man/man1/$m.1"; exit 1; }
done
grep -q '^\.TH STACKBENCH-RUN ' "$prefix/share/man/man1/stackbench-run.1" ||
	{ echo "stackbench-run.1 has no STACKBENCH-RUN title"; exit 1; }
grep -q 'resume' "$prefix/share/man/man1/stackbench-run.1" || { echo "stackbench-run.1 lacks the help text"; exit 1; }
comp=$prefix/share/bash-completion/completions/stackbench
test -f "$comp" || { echo "missing $comp"; exit 1; }
# the completion offers the commands and a command's options, from the installed tool's help
got=$(PATH="$prefix/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(stackbench ru); COMP_CWORD=1; _stackbench; echo "${COMPREPLY[*]}"' sh "$comp")
[ "$got" = run ] || { echo "completion of 'ru': '$got'"; exit 1; }
got=$(PATH="$prefix/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(stackbench run --res); COMP_CWORD=2; _stackbench; echo "${COMPREPLY[*]}"' sh "$comp")
[ "$got" = --resume ] || { echo "completion of 'run --res': '$got'"; exit 1; }
echo "install: ok ($prefix)"
