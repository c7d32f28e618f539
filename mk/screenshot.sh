#!/bin/sh
# mk/screenshot.sh CHROMIUM PAGE PNG: headless Chromium's screenshot of PAGE,
# 1400x2000 pixels, with nothing fetched from anywhere and a profile of its
# own that is removed afterwards.
set -eu
chromium=$1 page=$2 png=$3
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$profile" --hide-scrollbars --window-size=1400,2000 \
	--screenshot="$(realpath -m "$png")" "file://$(realpath "$page")" >/dev/null 2>&1
[ -s "$png" ] || { echo "screenshot.sh: $chromium made no $png" >&2; exit 1; }
