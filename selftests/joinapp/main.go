// SPDX-License-Identifier: GPL-2.0

// Command joinapp is the Go program the join oracle records: it writes its own runtime
// trace while its goroutines spin, block in system calls and fault in fresh memory.
//
// Usage: joinapp [-trace FILE] [-duration D] [-pprof ADDR]
//
// Two goroutines spin on the CPU (spin), one blocks in read(2) on a pipe another fills
// every millisecond and calls fsync(2) and reads /proc/self/stat (syscalls), one maps
// 64 MiB, writes a byte to each 4 KiB page and unmaps them again (faults). With -trace
// it traces itself into FILE for D (default 2s), then prints its thread ids and exits;
// with -pprof it also serves net/http/pprof at ADDR, and without -trace runs until
// killed. It prints "pid N" first.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime/trace"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	mapBytes = 64 << 20
	pageSize = 4096
)

var (
	stop atomic.Bool
	sink atomic.Uint64
)

// spin keeps one CPU busy until stop.
func spin(seed uint64) {
	x := seed
	for !stop.Load() {
		for i := 0; i < 1000; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		sink.Add(x & 1)
	}
}

// feed writes a byte to fd every millisecond, after a sleep, until stop; then closes it.
func feed(fd int) {
	b := []byte{1}
	for !stop.Load() {
		time.Sleep(time.Millisecond)
		if _, err := syscall.Write(fd, b); err != nil {
			log.Fatalf("joinapp: write to the pipe: %v", err)
		}
	}
	syscall.Close(fd)
}

// syscalls blocks in read(2) on fd (a blocking pipe: no netpoller), fsyncs a file and
// reads /proc/self/stat, until the pipe is closed.
func syscalls(fd int, f *os.File) {
	b := make([]byte, 64)
	for {
		n, err := syscall.Read(fd, b)
		if err != nil {
			log.Fatalf("joinapp: read from the pipe: %v", err)
		}
		if n == 0 {
			return
		}
		if _, err := f.Write(b[:n]); err != nil {
			log.Fatalf("joinapp: write %s: %v", f.Name(), err)
		}
		if err := syscall.Fsync(int(f.Fd())); err != nil {
			log.Fatalf("joinapp: fsync %s: %v", f.Name(), err)
		}
		if _, err := os.ReadFile("/proc/self/stat"); err != nil {
			log.Fatalf("joinapp: %v", err)
		}
	}
}

// fault maps fresh anonymous memory, touches each page and unmaps it, until stop.
func fault() {
	for !stop.Load() {
		m, err := syscall.Mmap(-1, 0, mapBytes, syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			log.Fatalf("joinapp: mmap %d bytes: %v", mapBytes, err)
		}
		for i := 0; i < len(m) && !stop.Load(); i += pageSize {
			m[i] = 1
		}
		if err := syscall.Munmap(m); err != nil {
			log.Fatalf("joinapp: munmap: %v", err)
		}
	}
}

// threads returns the ids of this process's threads, from /proc/self/task.
func threads() string {
	d, err := os.ReadDir("/proc/self/task")
	if err != nil {
		log.Fatalf("joinapp: %v", err)
	}
	var ids []string
	for _, e := range d {
		ids = append(ids, e.Name())
	}
	return strings.Join(ids, " ")
}

// run starts the workload: it runs until stop; done is closed when the syscalls end.
func run(scratch string) (done chan struct{}) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		log.Fatalf("joinapp: pipe: %v", err)
	}
	f, err := os.Create(scratch)
	if err != nil {
		log.Fatalf("joinapp: %v; pass a writable -scratch file", err)
	}
	done = make(chan struct{})
	go spin(1)
	go spin(2)
	go feed(p[1])
	go func() {
		syscalls(p[0], f)
		f.Close()
		os.Remove(scratch)
		close(done)
	}()
	go fault()
	return done
}

func main() {
	traceFile := flag.String("trace", "", "write the runtime trace to `FILE`")
	duration := flag.Duration("duration", 2*time.Second, "how long to trace")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof at `ADDR` (host:port)")
	scratch := flag.String("scratch", os.TempDir()+"/joinapp.fsync", "the `FILE` to write and fsync")
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	fmt.Printf("pid %d\n", os.Getpid())
	if *pprofAddr != "" {
		go func() {
			log.Fatal(http.ListenAndServe(*pprofAddr, nil))
		}()
		if *traceFile == "" {
			run(*scratch)
			select {}
		}
	}
	var out *os.File
	if *traceFile != "" {
		var err error
		if out, err = os.Create(*traceFile); err != nil {
			log.Fatalf("joinapp: %v", err)
		}
		if err := trace.Start(out); err != nil {
			log.Fatalf("joinapp: trace.Start: %v", err)
		}
	}
	done := run(*scratch)
	time.Sleep(*duration)
	stop.Store(true)
	<-done
	tids := threads()
	if out != nil {
		trace.Stop()
		if err := out.Close(); err != nil {
			log.Fatalf("joinapp: %v", err)
		}
	}
	fmt.Printf("threads %s\n", tids)
}
