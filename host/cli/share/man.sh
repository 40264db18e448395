#!/bin/sh
# Make the man pages from the tool's own help text: stackbench.1 and one stackbench-CMD.1 per
# command (as git does), with help2man. Run at build time.
#   man.sh STACKBENCH_EXE OUT_DIR
set -eu
exe=$1
out=$2
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$("$exe" --version | head -1)
help2man --no-info --no-discard-stderr --section=1 \
	--name="characterize 3D-stacked memory on the bench or the simulated bench" \
	--output="$out/stackbench.1.tmp" "$exe"
mv "$out/stackbench.1.tmp" "$out/stackbench.1"
for cmd in $("$exe" --help | awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }'); do
	summary=$("$exe" --help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
	# help2man runs PROGRAM --help and --version: a wrapper per command
	cat >"$tmp/stackbench-$cmd" <<WRAP
#!/bin/sh
[ "\$1" = --version ] && { echo "stackbench-$cmd ${version#stackbench }"; exit 0; }
exec "$exe" $cmd "\$@"
WRAP
	chmod +x "$tmp/stackbench-$cmd"
	help2man --no-info --no-discard-stderr --section=1 --name="$summary" \
		--output="$out/stackbench-$cmd.1.tmp" "$tmp/stackbench-$cmd"
	mv "$out/stackbench-$cmd.1.tmp" "$out/stackbench-$cmd.1"
done
