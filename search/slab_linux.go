//go:build linux

package search

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// allocSlab maps words zeroed 64-bit words outside the Go heap (pages are
// backed by memory only once written); it falls back to the heap when the
// mapping fails.
func allocSlab(words int) []uint64 {
	b, err := unix.Mmap(-1, 0, words*8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]uint64, words)
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), words)
}

// freeSlab unmaps a slab from allocSlab (one from the heap is left to the
// collector).
func freeSlab(s []uint64) {
	if len(s) == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*8)
	if err := unix.Munmap(b); err != nil {
		return // a heap slab: the collector frees it
	}
}
