# SPDX-License-Identifier: GPL-2.0
# Go 1.27 and its test traces for wire.sh and parsed.sh: sourced by them, never run on
# its own. They set ROOT (the repository) and TMP (a scratch directory) first.
#
#   bail MESSAGE...
#       "Bail out! SCRIPT: MESSAGE" and exit 1.
#   go127_setup
#       set GO (a Go 1.27 go binary: $GO_1_27, or the one scripts/setup/go-fetch.sh fetches
#       into build/go/1.27) and TOOL (its trace tool); export an offline Go
#       environment (GOCACHE in build/go/cache); build tests/wire_traces.go into
#       $TMP/wire_traces.
#   go127_traces
#       with wire_traces: made-up traces in $TMP/synth, real ones of Go 1.27 in
#       $TMP/real.trace and $TMP/allocfree.trace (the AllocFree experiment on), Go's
#       own test traces in $TMP/godata (its text ones made binary, and its fuzz corpus).

bail() {
	echo "Bail out! $(basename "$0"): $*"
	exit 1
}

go127_setup() {
	if [ -n "${GO_1_27:-}" ]; then
		GO=$GO_1_27
		TOOL=
	else
		out=$("$ROOT/scripts/setup/go-fetch.sh" --print) ||
			bail "scripts/setup/go-fetch.sh could not fetch Go 1.27; or set GO_1_27"
		GO=$(echo "$out" | sed -n 1p)
		TOOL=$(echo "$out" | sed -n 2p)/trace
	fi
	export GOCACHE="$ROOT/build/go/cache" GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod GOENV=off
	case $("$GO" env GOVERSION 2>/dev/null) in
	go1.27 | go1.27.*) ;;
	*) bail "$GO is not Go 1.27" ;;
	esac
	[ -n "$TOOL" ] || TOOL=$("$GO" tool -n trace) || bail "'go tool -n trace' failed"
	"$GO" build -o "$TMP/wire_traces" "$ROOT/userspace/tests/wire_traces.go" ||
		bail "tests/wire_traces.go does not build"
}

go127_traces() {
	mkdir -p "$TMP/synth" "$TMP/godata"
	"$TMP/wire_traces" synth "$TMP/synth" || bail "wire_traces synth failed"
	"$TMP/wire_traces" record "$TMP/real.trace" || bail "wire_traces record failed"
	GODEBUG=traceallocfree=1 "$TMP/wire_traces" record "$TMP/allocfree.trace" ||
		bail "wire_traces record (traceallocfree=1) failed"
	"$TMP/wire_traces" godata "$("$GO" env GOROOT)/src/internal/trace/testdata" "$TMP/godata" ||
		bail "wire_traces godata failed"
}
