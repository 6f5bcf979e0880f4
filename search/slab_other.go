//go:build !linux

package search

// allocSlab allocates words zeroed 64-bit words (on the heap: the file
// index, and with it the content filter, runs on Linux only).
func allocSlab(words int) []uint64 { return make([]uint64, words) }

// freeSlab leaves s to the collector.
func freeSlab([]uint64) {}

// trimSlab does nothing: a heap slab keeps its pages.
func trimSlab([]uint64, int) {}
