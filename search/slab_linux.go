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

// trimSlab gives back to the system the whole pages of s from word from
// on, which read as zero after; the words are free, nothing reads them.
func trimSlab(s []uint64, from int) {
	pageWords := unix.Getpagesize() / 8
	from = (from + pageWords - 1) / pageWords * pageWords
	if from >= len(s) {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[from:]))), (len(s)-from)*8)
	_ = unix.Madvise(b, unix.MADV_DONTNEED)
}
