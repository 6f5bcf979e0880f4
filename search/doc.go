// Package search finds text in files (Grep) and files by name (Files) below
// a workspace root, for the assistant's grep and search_files tools.
//
// Guarantees, for both: results are deterministic, in path order (folder by
// folder) and then line order, whatever the parallel schedule; paths are
// slash paths relative to the root; ".git" is skipped, and so is whatever
// the developer's ignore files exclude (see workspace.Ignorer); symlinks are
// never followed, so a search cannot leave the root or loop; files open in
// an editor can be searched as their buffer text (the Overlay of a request);
// a cancelled context stops the search soon (it is checked between files,
// between candidate lines and every 16 KiB inside a long line).
//
// Grep matches RE2 syntax (Go's regexp) line by line. A trailing carriage
// return is not part of the line, so "$" works on CRLF files. Files with a
// NUL byte in their first 8 KiB are binary and skipped, and files of
// MaxFileSize bytes or more are not read (the result names them). Shown lines are
// valid UTF-8 (invalid bytes become U+FFFD) and cut to about MaxLineLen bytes
// around the match.
//
// Speed comes from a parallel walk (one goroutine per CPU, directories read
// with getdents and opened relative to their parent on Linux), reused read
// buffers, and a prefilter: the literal bytes every match must contain are
// extracted from the parsed regexp, so most files and lines are rejected by
// byte scans (bytes.Index, bytes.IndexByte, starting at the rarest byte) and
// the regexp runs only on candidate lines, or, for ASCII-only patterns, only on
// the run of bytes around a candidate that a match could cover.
//
// Bounded work: Go's regexp costs up to pattern size × line length and
// cannot be interrupted inside one call, so a pattern over MaxPatternLen
// bytes or MaxPatternInsts compiled instructions, and globs over their
// limits, are refused before any file is read (the error names the limit),
// and a file on which the regexp could be slow is judged by a lazily built
// automaton over the same compiled program: linear in the text while its
// states stay few, checked for cancellation every 16 KiB, and stopped with
// *WorkLimitError past WorkLimit steps on one file.
//
// The file index (Index, one per workspace folder, kept by the long-lived
// server) lists every file the walk would visit, with its size, and is
// kept current by inotify; a request that carries it reads only the
// files it lists (plus the overlay) instead of walking, with the same ignore
// and match semantics. Before it answers it applies every change
// notification already queued, so a change made before the search began is
// seen. Until it is built, when it is off (watch limit reached, event queue
// overflowed while it is rebuilt, no inotify on the platform) and for a
// folder it does not hold (an ignored folder named as the path), searches
// walk as before.
//
// The index also keeps a content filter: for each distinct content (files
// with the same bytes share one) a Bloom filter of its trigrams, letters
// folded, 8 bits per trigram (when a new filter would not fit the memory
// budget, every filter is halved, down to 2 bits per trigram, and the rest
// of the indexer's pass builds them at that size). Where a pattern's
// required literal runs hold three letters or more, grep reads only the
// files whose filter may hold all of their trigrams (and never a binary
// file); with -i a k or an s counts as its ASCII letters, and a file
// holding the Kelvin sign or the long s (which fold to them) is always
// read. A file that changed since the filter read it, an open buffer, a
// file over 16 MiB and one over the filter's memory budget (48 MiB) are
// always read; the filter reads a changed file again in the background,
// 100 ms after the changes settle. Its first pass reads each file once, on
// one goroutine per CPU, and each content's filter serves searches as soon
// as it is built; grep reads the files not read yet. The filters' bits
// live in slabs outside the Go heap (on Linux), so that the collector
// neither scans them nor lets the heap grow by a multiple of them.
//
// Not guaranteed: a consistent snapshot of files that change during a
// search; multi-line matches (a match never spans a newline); binary
// detection beyond the first 8 KiB; the user's global git excludes file.
package search
