package main

import "testing"

// TestGCPercentFor checks the collector's room: 3x a small heap, the
// headroom above a larger one, half of a large one, never below.
func TestGCPercentFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 200},
		{4 << 20, 200},
		{8 << 20, 200},
		{16 << 20, 100},
		{24 << 20, 66},
		{32 << 20, 50},
		{400 << 20, 50},
	} {
		if got := gcPercentFor(tc.live); got != tc.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}
