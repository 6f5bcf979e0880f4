package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// GC headroom of the language server: GOGC 200 (a heap up to 3× what it
// holds) while it holds little, which halves the collector's work on the
// calls' short-lived allocations; once it holds more (a large workspace's
// file index), a heap of what it holds plus gcHeadroom, or plus half of
// it, whichever is more: a server holding 30 MB grows its heap to 46 MB
// rather than 90.
const (
	gcHeadroom   = 16 << 20
	gcPercentMax = 200
	gcPercentMin = 50
)

// gcPercentFor is the GOGC for a live heap of live bytes.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return gcPercentMax
	}
	room := max(uint64(gcHeadroom), live/2)
	return int(min(max(room*100/live, gcPercentMin), gcPercentMax))
}

// tuneGC sets GOGC from the live heap after every collection (a finalizer
// runs once per cycle and re-arms itself), for as long as the process runs.
func tuneGC() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	last := gcPercentMax
	debug.SetGCPercent(last)
	type tick struct{ _ [16]byte } // not a tiny allocation: finalizers need their own object
	var rearm func(*tick)
	rearm = func(t *tick) {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			if p := gcPercentFor(sample[0].Value.Uint64()); p != last {
				last = p
				debug.SetGCPercent(p)
			}
		}
		runtime.SetFinalizer(t, rearm)
	}
	runtime.SetFinalizer(&tick{}, rearm)
}
