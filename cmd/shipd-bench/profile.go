package main

import (
	"os"
	"runtime/pprof"
	"strings"
)

// profilePhase starts a CPU profile of one phase of the run when
// BENCH_CPUPROFILE names it as phase=path (writes, webhooks, booking,
// manifest); -cpuprofile covers the whole run instead. The returned stop
// ends it; it does nothing when no profile was asked for this phase.
func profilePhase(phase string) (stop func(), err error) {
	name, path, ok := strings.Cut(os.Getenv("BENCH_CPUPROFILE"), "=")
	if !ok || name != phase {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
