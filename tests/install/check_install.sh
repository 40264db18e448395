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
echo "install: ok ($prefix)"
