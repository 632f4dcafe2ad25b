#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --go's fetch of a Go service's trace (goapp/fetch.c through libcurl), against
# tests/pprof_server.py (TAP output): the trace's bytes, the seconds asked for, the URL's
# trailing slash, and the exact messages for HTTP 404, HTTP 500, a refused connection and a
# file that cannot be created, after none of which a file is left; and the message when
# libcurl.so.4 is not libcurl. All with a proxy in the environment that loopback bypasses.
#
# Usage: tests/go_fetch.sh GO_FETCH TRACE NOLIB
# GO_FETCH: build/go_fetch (URL SECONDS FILE, fetch.c alone); TRACE: the trace to serve;
# NOLIB: a shared library without libcurl's functions.
set -eu

GO_FETCH=$1
TRACE=$2
NOLIB=$3
TMP=$(mktemp -d)
SERVER=
# A proxy in the environment, none there: loopback requests must not go to it (nor to a
# CI's, whatever no_proxy says).
export http_proxy=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9 no_proxy=example.com
trap 'if [ -n "$SERVER" ]; then kill "$SERVER"; fi; rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$(dirname "$0")/../../scripts/lib/tap-lib.sh"

echo "TAP version 13"
python3 "$(dirname "$0")/pprof_server.py" "$TRACE" "$TMP/port" "$TMP/log" &
SERVER=$!
i=0
while [ ! -s "$TMP/port" ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
if [ ! -s "$TMP/port" ]; then
	echo "Bail out! pprof_server.py did not start"
	exit 1
fi
URL=http://127.0.0.1:$(cat "$TMP/port")

# fetch NAME URL SECONDS [FILE]: go_fetch into FILE (default $TMP/NAME.trace); RC, its
# stderr in $TMP/NAME.err.
fetch() {
	RC=0
	FILE=${4:-$TMP/$1.trace}
	: > "$TMP/log"
	"$GO_FETCH" "$2" "$3" "$FILE" 2> "$TMP/$1.err" || RC=$?
}

# fails NAME MESSAGE: exit status 1, "GO_FETCH record: MESSAGE" alone on stderr, no file left.
fails() {
	printf '%s record: %s\n' "${GO_FETCH##*/}" "$2" > "$TMP/$1.want"
	[ "$RC" -eq 1 ] && cmp -s "$TMP/$1.want" "$TMP/$1.err" && [ ! -e "$FILE" ]
}

# fetched NAME: exit status 0, nothing on stderr, TRACE's bytes in the file.
fetched() {
	[ "$RC" -eq 0 ] && [ ! -s "$TMP/$1.err" ] && cmp -s "$TRACE" "$TMP/$1.trace"
}

# asked QUERY: the server's one request was QUERY.
asked() {
	[ "$(cat "$TMP/log")" = "$1" ]
}

fetch ok "$URL" 1
expect "the trace fetched is the one served, byte for byte" "$TMP/ok.err" fetched ok
expect "--duration 1 asks for /debug/pprof/trace?seconds=1" "$TMP/log" \
	asked "/debug/pprof/trace?seconds=1"

fetch half "$URL/" 0.5
expect "URL/ and 0.5 s ask for /debug/pprof/trace?seconds=0.5" "$TMP/log" \
	asked "/debug/pprof/trace?seconds=0.5"

fetch missing "$URL/app" 1
expect "HTTP 404: the service does not import net/http/pprof" "$TMP/missing.err" \
	fails missing "$URL/app has no /debug/pprof/trace (HTTP 404): import _ \"net/http/pprof\" in the service, or give the address that serves it"

fetch busy "$URL/busy" 1
expect "HTTP 500: what the service said" "$TMP/busy.err" \
	fails busy "$URL/busy/debug/pprof/trace answered HTTP 500: Could not enable tracing: tracing is already enabled: see the service's log"

kill "$SERVER"
wait "$SERVER" 2> /dev/null || true
SERVER=

# no_proxy=* sends no host to the proxy; a list with "*" in it would send all but its
# others to it, so loopback cannot tell: a server on this machine's first other address.
ADDR=$(hostname -I 2>/dev/null | awk '{ print $1 }')
case $ADDR in
*.*.*.*)
	python3 "$(dirname "$0")/pprof_server.py" "$TRACE" "$TMP/port2" "$TMP/log" "$ADDR" &
	SERVER=$!
	i=0
	while [ ! -s "$TMP/port2" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	no_proxy='*'
	fetch star "http://$ADDR:$(cat "$TMP/port2")" 1
	no_proxy=example.com
	expect "no_proxy=*: no host goes to the proxy" "$TMP/star.err" fetched star
	kill "$SERVER"
	wait "$SERVER" 2> /dev/null || true
	SERVER=
	;;
*)
	result 0 "no_proxy=*: no host goes to the proxy # SKIP no IPv4 address but loopback"
	;;
esac

fetch refused "$URL" 1
expect "connection refused: is the service serving net/http/pprof?" "$TMP/refused.err" \
	fails refused "cannot connect to $URL: is the service serving net/http/pprof at $URL?"

fetch create "$URL" 1 "$TMP/ok.trace/x.trace"
expect "a file that cannot be created: said before connecting" "$TMP/create.err" \
	fails create "cannot create $TMP/ok.trace/x.trace: Not a directory: choose another file with -o"

mkdir "$TMP/lib"
cp "$NOLIB" "$TMP/lib/libcurl.so.4"
RC=0
LD_LIBRARY_PATH=$TMP/lib "$GO_FETCH" "$URL" 1 "$TMP/nolib.trace" 2> "$TMP/nolib.err" || RC=$?
FILE=$TMP/nolib.trace
expect "a libcurl.so.4 without curl_global_init: what to install, what to do without" \
	"$TMP/nolib.err" fails nolib "cannot open libcurl.so.4: $TMP/lib/libcurl.so.4: undefined symbol: curl_global_init: install libcurl4, or fetch the trace yourself (curl -o APP.trace URL/debug/pprof/trace?seconds=S) while gotrace records, and join them with gotrace merge"

tap_end
