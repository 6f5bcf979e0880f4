package edits

import (
	"cmp"
	"context"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/whale-ls/whale-ls/internal/filelock"
)

// LockOptions configures Locks.
type LockOptions struct {
	// Dir is a private folder (mode 0700, the user's own) shared by every
	// whale process of the user, where the advisory cross-process locks
	// live. Empty leaves only the locks of this process.
	Dir string
	// Wait bounds the wait for another process's lock (DefaultLockWait
	// when 0): a process that took a lock file and keeps it — a task can
	// open one — gets a *filelock.HeldError naming it, not a commit that
	// waits for ever.
	Wait time.Duration
	// BeforeRename, when set (by tests), runs before each rename of a
	// commit and can make it fail, to exercise the rollback.
	BeforeRename func(target string) error
}

// DefaultLockWait is how long a commit waits for another whale process's
// lock on the same file: commits hold it for milliseconds.
const DefaultLockWait = 30 * time.Second

// Locks serialises commits of the same file. Inside the process it uses
// striped mutexes shared by every Locks value (two roots may reach one
// file); across processes it uses advisory locks (internal/filelock) on lock files in
// LockOptions.Dir, so that the language server, `whale-ls mcp` and
// `whale-ls call` never commit one file at the same time.
//
// A file's lock key is its absolute path with symbolic links resolved, not
// its inode: a commit replaces the inode, and a key that changed with it
// would let the next writer in early. Keys hash onto lockBuckets lock files,
// so the folder holds a bounded number of files; two files in one bucket
// only wait for each other. Writers that are not whale take none of these
// locks.
type Locks struct {
	opts LockOptions
}

// NewLocks returns the locks of one front end.
func NewLocks(opts LockOptions) *Locks { return &Locks{opts: opts} }

// stripeCount is the number of in-process mutexes keys hash onto.
const stripeCount = 64

// lockBuckets is the number of lock files keys hash onto.
const lockBuckets = 1024

// stripes serialise commits within this process: each is a one-slot
// semaphore, so that a wait can end with its context.
var stripes = func() (s [stripeCount]chan struct{}) {
	for i := range s {
		s[i] = make(chan struct{}, 1)
	}
	return s
}()

// heldLocks is what a Txn holds: stripe indexes and open lock files.
type heldLocks struct {
	stripes []int
	files   []*os.File
}

func (h *heldLocks) release() {
	for k := len(h.files) - 1; k >= 0; k-- {
		filelock.Close(h.files[k])
	}
	for k := len(h.stripes) - 1; k >= 0; k-- {
		<-stripes[h.stripes[k]]
	}
	*h = heldLocks{}
}

// Begin takes the locks of the files at paths (absolute; they need not
// exist) and returns the Txn that holds them. Stripes are taken first, then
// lock files, each in ascending order, so two Txns never deadlock. Waiting
// ends with ctx; the cross-process wait polls, with a backoff of at most
// 8 ms.
func (l *Locks) Begin(ctx context.Context, paths ...string) (*Txn, error) {
	var stripeIdx, buckets []int
	for _, p := range paths {
		k := lockKey(p)
		stripeIdx = append(stripeIdx, int(hashKey(k)%stripeCount))
		buckets = append(buckets, int(hashKey(k)%lockBuckets))
	}
	slices.Sort(stripeIdx)
	slices.Sort(buckets)
	stripeIdx, buckets = slices.Compact(stripeIdx), slices.Compact(buckets)

	tx := &Txn{locks: l}
	for _, i := range stripeIdx {
		if err := lockStripe(ctx, i); err != nil {
			tx.End()
			return nil, err
		}
		tx.held.stripes = append(tx.held.stripes, i)
	}
	if l.opts.Dir == "" {
		return tx, nil
	}
	dir := filepath.Join(l.opts.Dir, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tx.End()
		return nil, err
	}
	for _, b := range buckets {
		f, err := filelock.OpenWithin(ctx, filepath.Join(dir, bucketName(b)), cmp.Or(l.opts.Wait, DefaultLockWait))
		if err != nil {
			tx.End()
			return nil, err
		}
		tx.held.files = append(tx.held.files, f)
	}
	return tx, nil
}

// lockStripe takes stripe i, giving up when ctx ends.
func lockStripe(ctx context.Context, i int) error {
	select {
	case stripes[i] <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func bucketName(b int) string {
	const hexDigits = "0123456789abcdef"
	return string([]byte{hexDigits[b>>8&15], hexDigits[b>>4&15], hexDigits[b&15]}) + ".lock"
}

func hashKey(k string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(k))
	return h.Sum32()
}

// lockKey is the canonical name of the file at p: absolute, cleaned, with
// the symbolic links of its longest existing prefix resolved.
func lockKey(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for dir := p; ; {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
