package search

import (
	"slices"
	"testing"
)

// TestFilterStoreCompacts fills more than one slab with filters, frees
// most of them, and checks that compacting gives slabs back and keeps every
// live filter's bits and flag.
func TestFilterStoreCompacts(t *testing.T) {
	t.Parallel()
	var s filterStore
	defer s.release()
	const words = slabWords / 8
	var refs []filterRef
	var want []gramFilter
	for i := range 20 {
		f := make(gramFilter, words-i)
		for j := range f {
			f[j] = uint64(i)<<32 | uint64(j)
		}
		r := s.put(f)
		if i%2 == 0 {
			r |= refFolds
		}
		refs, want = append(refs, r), append(want, f)
	}
	if n := len(s.slabs); n != 3 {
		t.Fatalf("%d slabs for 20 filters of about an eighth of one, want 3", n)
	}
	for i := range refs {
		if i%5 != 0 {
			s.free(refs[i])
			refs[i], want[i] = 0, nil
		}
	}
	if !s.wasteful() {
		t.Fatalf("after freeing 16 of 20 filters: live %d, dead %d words; want compact to be due", s.live, s.dead)
	}
	s.compact(refs)
	if n := len(s.slabs); n != 1 || s.dead != 0 {
		t.Errorf("after compact: %d slabs, %d dead words; want 1 and none", n, s.dead)
	}
	for i, r := range refs {
		if want[i] == nil {
			continue
		}
		if !slices.Equal(s.view(r), want[i]) || (r&refFolds != 0) != (i%2 == 0) {
			t.Errorf("filter %d changed in the move (flag %v)", i, r&refFolds != 0)
		}
	}
	if s.view(0) != nil || s.put(nil) != 0 {
		t.Error("the empty filter has a ref other than 0")
	}
}

// TestBlobIndex inserts and removes blobs at random, many with hashes
// that collide in the table's low bits, and checks every lookup against a
// map.
func TestBlobIndex(t *testing.T) {
	t.Parallel()
	var ix blobIndex
	keys := make([]blobKey, firstBlob)
	want := map[blobKey]uint32{}
	rng := uint64(1)
	next := func() uint64 { rng = rng*6364136223846793005 + 1442695040888963407; return rng >> 11 }
	for step := range 20000 {
		if len(want) > 0 && next()%3 == 0 {
			for k, id := range want {
				ix.remove(keys, id)
				delete(want, k)
				break
			}
		} else {
			k := blobKey{size: int64(step), sum: next() % 512} // few distinct homes
			if step%7 == 0 {
				k.sum = next()
			}
			id := uint32(len(keys))
			keys = append(keys, k)
			ix.insert(keys, id)
			want[k] = id
		}
		if step%1999 == 0 || step == 19999 {
			for k, id := range want {
				if got, ok := ix.find(keys, k); !ok || got != id {
					t.Fatalf("step %d: find(%v) = %d, %v; want %d", step, k, got, ok, id)
				}
			}
			if _, ok := ix.find(keys, blobKey{size: -1, sum: 3 << 20}); ok {
				t.Fatalf("step %d: found a key never inserted", step)
			}
			if ix.n != len(want) {
				t.Fatalf("step %d: %d entries, want %d", step, ix.n, len(want))
			}
		}
	}
}
