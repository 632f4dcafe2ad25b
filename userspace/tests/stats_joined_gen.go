// SPDX-License-Identifier: GPL-2.0

// stats_joined_gen writes stats-joined.trace, the fixture of tests/stats_joined.sh: a Go
// program's own trace whose user regions carry the types gotrace merge gives its kernel
// regions ("kernel: waiting for a CPU", ...), so gotrace stats reads it as a joined trace.
// The goroutines spin (they stay Running) inside most regions; blocker's second region
// holds a sleep and syscaller's a blocking read(2) of a pipe, so a region also spans time the goroutine
// is not running or is in a system call. Not built by make; to regenerate (Go 1.27):
//
//	cd userspace/tests && go run stats_joined_gen.go stats-joined.trace
package main

import (
	"context"
	"os"
	"runtime/trace"
	"sync"
	"syscall"
	"time"
)

// The goroutines' functions take no arguments, so each is its goroutine's start function
// (a go statement with arguments starts a wrapper, main.main.gowrap1).
var (
	ctx  = context.Background()
	wg   sync.WaitGroup
	pipe [2]int
)

func spin(d time.Duration) {
	for t := time.Now(); time.Since(t) < d; {
	}
}

// region runs fn inside a user region of type typ.
func region(typ string, fn func()) {
	r := trace.StartRegion(ctx, typ)
	fn()
	r.End()
}

func waiter() {
	defer wg.Done()
	region("kernel: waiting for a CPU", func() { spin(2 * time.Millisecond) })
	spin(time.Millisecond)
	region("kernel: throttled", func() { spin(time.Millisecond) })
}

func blocker() {
	defer wg.Done()
	region("kernel: blocked in page fault or kernel wait",
		func() { spin(time.Millisecond) })
	region("kernel: blocked in futex", func() {
		spin(500 * time.Microsecond)
		time.Sleep(2 * time.Millisecond)
		spin(500 * time.Microsecond)
	})
	// Types that are not the join's: their time is on a CPU.
	region("not a kernel region", func() { spin(300 * time.Microsecond) })
	region("kernel: throttled!", func() { spin(300 * time.Microsecond) })
	// The join's blocked kind without a reason (MACHINE gave none).
	region("kernel: blocked in", func() { spin(300 * time.Microsecond) })
}

func syscaller() {
	defer wg.Done()
	buf := make([]byte, 1)
	region("kernel: syscall blocked in read", func() { syscall.Read(pipe[0], buf) })
	spin(time.Millisecond)
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := syscall.Pipe(pipe[:]); err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	wg.Add(4)
	go waiter()
	go waiter()
	go blocker()
	go syscaller()
	time.Sleep(3 * time.Millisecond)
	syscall.Write(pipe[1], []byte{1})
	wg.Wait()
	trace.Stop()
	f.Close()
}
