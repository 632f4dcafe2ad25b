// SPDX-License-Identifier: GPL-2.0

// Go 1.22+ traces for tests/wire.sh, which compares 'gotrace dump --wire' with
// 'go tool trace -d=wire' on them:
//
//	wire_traces record FILE   a real trace of this program (Go 1.27 writes 1.26):
//	                          goroutines, channels, GC, syscalls, tasks, regions,
//	                          logs with any bytes, labels, coroutines, CPU samples
//	                          (run it with GODEBUG=traceallocfree=1 for experimental
//	                          batches)
//	wire_traces synth DIR     made-up traces: DIR/all-1.NN.trace has every event
//	                          type of version 1.NN with extreme varints;
//	                          DIR/runes.trace strings with every rune and every
//	                          kind of invalid UTF-8; DIR/header-*.trace headers
//	                          Go's fmt.Fscanf accepts in odd spellings
//	wire_traces godata SRC DIR  Go's own test traces in binary: SRC is Go's
//	                          internal/trace/testdata; its tests/*.test (text
//	                          traces) become DIR/NAME.trace, its fuzz corpus
//	                          (quoted bytes) DIR/fuzz-NAME.trace
//	wire_traces cuts FILE DIR  FILE cut at each generation boundary B (after an
//	                          EndOfGeneration in 1.26, before a batch of the next
//	                          generation number before): DIR/head-B.trace is what
//	                          comes before it, DIR/tail-B.trace the header and
//	                          what follows (a trace that starts later)
//
// Standard library only: it builds offline (GOTOOLCHAIN=local, GOPROXY=off).

//go:build ignore

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

func die(err error) {
	fmt.Fprintln(os.Stderr, "wire_traces:", err)
	os.Exit(1)
}

// Values whose log, label and task names exercise the quoting of data.
var odd = []string{"plain", "héllo wörld", "日本語", "tab\there", "nl\nq\"b\\", "\x00\x01\x7f",
	"\xff\xfe invalid", "emoji 😀", "\u00ad soft hyphen", "\u200b zero width", "\U000E0001"}

var sink []byte

func burn(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		sink = make([]byte, 4096)
	}
}

func work(ctx context.Context) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	ch := make(chan int)
	for i, s := range odd {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, task := trace.NewTask(ctx, s)
			defer task.End()
			trace.WithRegion(ctx, s, func() {
				trace.Log(ctx, s, s)
				mu.Lock()
				burn(2 * time.Millisecond)
				mu.Unlock()
			})
			if i%2 == 0 {
				ch <- i
			}
		}()
	}
	for range (len(odd) + 1) / 2 {
		<-ch
	}
	wg.Wait()
	next, stop := iter.Pull(func(yield func(int) bool) {
		for i := 0; yield(i); i++ {
		}
	})
	for range 3 {
		next()
	}
	stop()
	if _, err := os.ReadFile("/proc/self/stat"); err != nil {
		die(err)
	}
	runtime.GOMAXPROCS(1)
	runtime.GOMAXPROCS(2)
	runtime.GC()
	time.Sleep(time.Millisecond)
	burn(50 * time.Millisecond)
}

func record(path string) {
	f, err := os.Create(path)
	if err != nil {
		die(err)
	}
	if err := pprof.StartCPUProfile(discard{}); err != nil {
		die(err)
	}
	if err := trace.Start(f); err != nil {
		die(err)
	}
	work(context.Background())
	trace.Stop()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		die(err)
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// Arguments of each event type (tracev2.Specs()), frames and data aside.
var nargs = map[int]int{
	1: 4, 3: 2, 5: 1, 7: 5, 8: 1, 9: 3, 10: 3, 11: 1, 12: 4, 13: 3, 14: 4, 15: 2, 16: 3,
	17: 1, 18: 1, 19: 3, 20: 3, 21: 4, 22: 3, 23: 1, 24: 1, 25: 4, 26: 3, 27: 1, 28: 2,
	29: 3, 30: 2, 31: 2, 32: 2, 33: 3, 34: 2, 35: 2, 36: 1, 37: 2, 38: 2, 39: 2, 40: 5,
	41: 3, 42: 4, 43: 4, 44: 5, 45: 3, 46: 3, 47: 4, 48: 5, 49: 4, 51: 4,
	128: 4, 129: 4, 130: 2, 131: 3, 132: 3, 133: 2, 134: 3, 135: 3, 136: 2,
}

const (
	evStack             = 3
	evString            = 5
	evExperimentalBatch = 49
)

// The highest event type of each version's table.
var maxType = map[int]int{22: 44, 23: 49, 25: 51, 26: 136}

type writer struct {
	b []byte
	n int // values written, to vary them
}

// Varints of every length, the largest value, and longer than needed encodings.
func (w *writer) arg() {
	v := []uint64{0, 1, 127, 128, 300, 1 << 21, 1<<35 + 5, 1 << 56, 1<<63 + 7, ^uint64(0)}
	switch w.n++; w.n % 13 {
	case 11:
		w.b = append(w.b, 0x85, 0x80, 0x00) // 5, in three bytes
	case 12:
		w.b = append(w.b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)
	default:
		w.b = binary.AppendUvarint(w.b, v[w.n%13%len(v)])
	}
}

func (w *writer) u(v uint64) { w.b = binary.AppendUvarint(w.b, v) }

func (w *writer) event(typ int) {
	w.b = append(w.b, byte(typ))
	switch typ {
	case evStack:
		w.arg()
		w.u(3)
		for i := 0; i < 12; i++ {
			w.arg()
		}
	case evString:
		w.arg()
		w.u(11)
		w.b = append(w.b, "hello\x00\"\\\n\xe2\x82"...)
	case evExperimentalBatch:
		for i := 0; i < 4; i++ {
			w.arg()
		}
		w.u(256)
		for i := 0; i < 256; i++ {
			w.b = append(w.b, byte(i))
		}
	default:
		for i := 0; i < nargs[typ]; i++ {
			w.arg()
		}
	}
}

func header(v int) []byte {
	return []byte(fmt.Sprintf("go 1.%d trace\x00\x00\x00", v))
}

// Every type of the version, then the odd cases of Stack and String: no
// frames, no data, and counts Go's reader takes as negative (nothing follows).
func all(v int) []byte {
	w := &writer{b: header(v)}
	for typ := 1; typ <= maxType[v]; typ++ {
		w.event(typ)
	}
	w.b = append(w.b, evStack)
	w.u(7)
	w.u(0)
	w.b = append(w.b, evStack)
	w.u(8)
	w.u(1 << 63)
	w.b = append(w.b, evString)
	w.u(9)
	w.u(0)
	w.b = append(w.b, evString)
	w.u(10)
	w.u(^uint64(0))
	return w.b
}

// Strings with every rune, every byte alone, and the invalid sequences
// Go's utf8.DecodeRune refuses: overlong, surrogates, above U+10FFFF, cut.
func runes() []byte {
	w := &writer{b: header(26)}
	var s []byte
	flush := func() {
		w.b = append(w.b, evString)
		w.u(uint64(w.n))
		w.n++
		w.u(uint64(len(s)))
		w.b = append(w.b, s...)
		s = s[:0]
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		s = utf8.AppendRune(s, r)
		if len(s) >= 4000 {
			flush()
		}
	}
	flush()
	for b := 0; b < 256; b++ {
		s = append(s, byte(b), 'x')
	}
	flush()
	for _, bad := range []string{"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf",
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xe2\x82", "\xf0\x9f\x98", "\xc3"} {
		s = append(s, bad...)
		flush()
	}
	return w.b
}

// Headers fmt.Fscanf("go 1.%d trace\x00\x00\x00") reads as valid, each with events.
var headers = map[string]string{
	"zeros":   "go 1.0026 trace\x00\x00\x00",
	"spaces":  "go \t\v\f\r 1. \t26 \u00a0\u2000\u3000trace\x00\x00\x00",
	"unicode": "go\u0085\u1680\u200a\u2028\u2029\u202f\u205f1.\u00a026\u0085trace\x00\x00\x00",
}

func synth(dir string) {
	files := map[string][]byte{"runes.trace": runes()}
	for v := range maxType {
		files[fmt.Sprintf("all-1.%d.trace", v)] = all(v)
	}
	body := all(26)[16:]
	for name, h := range headers {
		files["header-"+name+".trace"] = append([]byte(h), body...)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			die(err)
		}
	}
}

// Event types by name (tracev2/events.go), for the text traces.
var types = map[string]byte{
	"EventBatch": 1, "Stacks": 2, "Stack": 3, "Strings": 4, "String": 5, "CPUSamples": 6,
	"CPUSample": 7, "Frequency": 8, "ProcsChange": 9, "ProcStart": 10, "ProcStop": 11,
	"ProcSteal": 12, "ProcStatus": 13, "GoCreate": 14, "GoCreateSyscall": 15, "GoStart": 16,
	"GoDestroy": 17, "GoDestroySyscall": 18, "GoStop": 19, "GoBlock": 20, "GoUnblock": 21,
	"GoSyscallBegin": 22, "GoSyscallEnd": 23, "GoSyscallEndBlocked": 24, "GoStatus": 25,
	"STWBegin": 26, "STWEnd": 27, "GCActive": 28, "GCBegin": 29, "GCEnd": 30,
	"GCSweepActive": 31, "GCSweepBegin": 32, "GCSweepEnd": 33, "GCMarkAssistActive": 34,
	"GCMarkAssistBegin": 35, "GCMarkAssistEnd": 36, "HeapAlloc": 37, "HeapGoal": 38,
	"GoLabel": 39, "UserTaskBegin": 40, "UserTaskEnd": 41, "UserRegionBegin": 42,
	"UserRegionEnd": 43, "UserLog": 44, "GoSwitch": 45, "GoSwitchDestroy": 46,
	"GoCreateBlocked": 47, "GoStatusStack": 48, "ExperimentalBatch": 49, "Sync": 50,
	"ClockSnapshot": 51, "EndOfGeneration": 52,
}

// The "-- trace --" part of a Go test file (raw's text format) in binary: an
// event line is its type and its values, a frame line its 4 values, a data
// line the length and the bytes; '#' starts a comment.
func textTrace(test []byte) ([]byte, error) {
	_, text, ok := bytes.Cut(test, []byte("\n-- trace --\n"))
	if !ok {
		return nil, fmt.Errorf("no trace section")
	}
	var b []byte
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && k == "data" {
			data, err := strconv.Unquote(strings.TrimSpace(v))
			if err != nil {
				return nil, err
			}
			b = binary.AppendUvarint(b, uint64(len(data)))
			b = append(b, data...)
			continue
		}
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "Trace" && len(f) == 2 {
			n, err := strconv.Atoi(strings.TrimPrefix(f[1], "Go1."))
			if err != nil {
				return nil, err
			}
			b = header(n)
			continue
		}
		if !strings.Contains(f[0], "=") {
			t, ok := types[f[0]]
			if !ok {
				return nil, fmt.Errorf("unknown event %q", f[0])
			}
			b = append(b, t)
			f = f[1:]
		}
		for _, a := range f {
			_, v, _ := strings.Cut(a, "=")
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return nil, err
			}
			b = binary.AppendUvarint(b, n)
		}
	}
	return b, nil
}

// A fuzz corpus file: "go test fuzz v1" and []byte("...").
func fuzzTrace(corpus []byte) ([]byte, error) {
	_, q, ok := bytes.Cut(corpus, []byte("[]byte("))
	if !ok {
		return nil, fmt.Errorf("no []byte value")
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimSpace(string(q)), ")"))
	return []byte(s), err
}

func godata(src, dir string) {
	for _, glob := range []string{"tests/*.test", "fuzz/FuzzReader/*"} {
		files, _ := filepath.Glob(filepath.Join(src, glob))
		if len(files) == 0 {
			die(fmt.Errorf("no %s in %s", glob, src))
		}
		for _, f := range files {
			in, err := os.ReadFile(f)
			if err != nil {
				die(err)
			}
			name := strings.TrimSuffix(filepath.Base(f), ".test")
			conv := textTrace
			if strings.HasPrefix(glob, "fuzz") {
				name = "fuzz-" + name
				conv = fuzzTrace
			}
			out, err := conv(in)
			if err != nil {
				die(fmt.Errorf("%s: %v", f, err))
			}
			if err := os.WriteFile(filepath.Join(dir, name+".trace"), out, 0o644); err != nil {
				die(err)
			}
		}
	}
}

// boundaries returns the offsets in trace where a generation ends.
func boundaries(trace []byte) ([]int, int) {
	start := bytes.Index(trace, []byte("trace\x00\x00\x00")) + 8
	r := bytes.NewReader(trace[start:])
	var cuts []int
	last := uint64(0)
	for r.Len() > 0 {
		at := len(trace) - r.Len()
		typ, _ := r.ReadByte()
		if typ == 52 { // EndOfGeneration
			cuts = append(cuts, at+1)
			continue
		}
		if typ == 49 { // ExperimentalBatch: the experiment's byte
			r.ReadByte()
		}
		var h [4]uint64
		for i := range h {
			v, err := binary.ReadUvarint(r)
			if err != nil {
				return cuts, start
			}
			h[i] = v
		}
		if trace[6] != '6' && last != 0 && h[0] != last {
			cuts = append(cuts, at)
		}
		last = h[0]
		if _, err := r.Seek(int64(h[3]), 1); err != nil {
			return cuts, start
		}
	}
	return cuts, start
}

func cuts(file, dir string) {
	trace, err := os.ReadFile(file)
	if err != nil {
		die(err)
	}
	b, start := boundaries(trace)
	for _, at := range b {
		head := filepath.Join(dir, fmt.Sprintf("head-%d.trace", at))
		tail := filepath.Join(dir, fmt.Sprintf("tail-%d.trace", at))
		rest := append(append([]byte{}, trace[:start]...), trace[at:]...)
		if os.WriteFile(head, trace[:at], 0o644) != nil || os.WriteFile(tail, rest, 0o644) != nil {
			die(fmt.Errorf("cannot write %s", dir))
		}
	}
}

func main() {
	switch {
	case len(os.Args) == 3 && os.Args[1] == "record":
		record(os.Args[2])
	case len(os.Args) == 3 && os.Args[1] == "synth":
		synth(os.Args[2])
	case len(os.Args) == 4 && os.Args[1] == "godata":
		godata(os.Args[2], os.Args[3])
	case len(os.Args) == 4 && os.Args[1] == "cuts":
		cuts(os.Args[2], os.Args[3])
	default:
		die(fmt.Errorf("usage: wire_traces record FILE | synth DIR | godata SRC DIR | cuts FILE DIR"))
	}
}
