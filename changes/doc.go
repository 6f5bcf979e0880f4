// Package changes is the journal of what whale-ls's tool calls changed in a
// workspace, and the engine that takes a change back.
//
// A Journal lives in one folder per workspace (whale-ls keeps it under
// $XDG_STATE_HOME/whale-ls/<workspace id>/changes/) and is shared by every
// whale-ls process of the user: an entry per tool call, listing per file the
// content before and after (blobs named by their SHA-256, compressed, stored
// once), where the change went (editor buffer or disk), the tool, call id,
// session and time. A tool journals a change in two steps around its commit:
// Begin stores the blobs and a pending entry, then Commit publishes it once
// the files are written, or Abort removes it and the blobs only it stored
// (their records go at the next compaction). In the common case neither
// creates nor renames a file: each appends one record to the log.
// Shell tasks are journaled through a Snapshot taken before the task and its
// Changes afterwards. PlanRevert computes, without writing, what reverting
// entries makes of each file's current content, by a line-based three-way
// merge (Merge3); the caller commits that plan and journals it as a new
// entry with Meta.RevertOf, so a revert can itself be reverted.
//
// On disk (dir is the journal's folder):
//
//	dir/lock        the file whose exclusive lock every writer holds while it appends
//	dir/log         the log: every entry, its commit or abort, and every blob
//	                up to 512 KiB compressed, as records appended one after another
//	dir/blobs/ab/…  blobs larger than that, one file each, named by their id
//	dir/index/*.gob the snapshot index of each workspace root
//
// A record is the bytes "whl\x01", its length, its CRC-32C and a type byte
// with its payload (see log.go): a header (the count of dropped entries and
// the newest id), a blob (compressed whole, or as a delta: the bytes an
// edit's after shares at its ends with its before are taken from the before,
// at most 16 deltas deep), a begun entry, a committed entry, or the commit or
// abort of an entry. An entry is pending from its begin record until its
// commit or abort record. A Journal keeps the log open for appending and reads
// what other processes appended from where it last stopped; compaction writes
// a new log with only the live records under a temporary name and renames it
// over the old one, which every Journal notices and reads afresh.
//
// What it guarantees:
//   - Every append to the log happens under an exclusive lock on dir/lock
//     (flock; LockFileEx on Windows), held only for the append, so processes
//     interleave without losing entries; ids are unique and strictly
//     increasing in time across them ("20261202T004012.123456Z-3f9a"). A
//     Journal's List, Get, Blob and Diff see every entry any process
//     committed before the call. A record is written with one write and
//     read only when its length and checksum hold: a record torn by a crash
//     at the end of the log is ignored and cut off by the next writer, a
//     damaged one inside it is skipped. Large blob files, indexes and the
//     compacted log appear under their final names only when complete
//     (temporary file and rename). The folders are 0700, the files 0600.
//   - A committed entry lists exactly the files given to Begin whose content
//     or existence changed, and their blobs are there; a blob whose bytes
//     were damaged is reported (ErrDamaged), an entry record that fails its
//     checksum is skipped and logged (Get then reports ErrNotFound); neither
//     is used.
//   - The folder stays within Options.MaxBytes: past it, a commit compacts
//     the log, dropping the oldest entries and the blobs only they used (a
//     blob stays while a kept delta is built on it), and List says how many
//     entries were dropped in all. The log is also compacted when dead
//     records (aborted entries and their blobs) pass a quarter of it.
//   - A revert keeps every line changed after the entry outside the lines
//     the entry changed; a region both touched is a conflict that leaves the
//     whole plan empty. A created file is deleted only while it holds exactly
//     what the entry wrote. Merges are byte-exact: CRLF, mixed line endings
//     and a missing final newline round-trip.
//   - Snapshot after the first of a root stats every file and reads only
//     those whose size, mtime, inode or change time differ from the index, or
//     whose mtime is within two seconds of when it was last read; contents are
//     stored once, so storage grows with what changed.
//
// What it does not do:
//   - Changes made outside tool calls and shell tasks (the user typing, git,
//     other programs) are not recorded; a Snapshot's Changes attributes to
//     the task everything that changed under the root meanwhile, including a
//     concurrent tool call's edits or another task's.
//   - A Snapshot records regular files not ignored by the workspace's ignore
//     files; symlinks, permissions and empty folders are not recorded, files
//     larger than Options.MaxFileBytes (8 MiB) or past half of MaxBytes are
//     recorded without content and reported as Skipped when changed.
//   - A revert restores contents; creating missing parent folders, checking
//     that nothing changed between the plan and the commit, and writing
//     through the editor are the caller's commit path's.
//   - Without Options.Sync nothing is fsynced: a crash of the machine (not of
//     a process) can lose the newest entries. An entry left pending by a
//     process that died is published or removed by a later Open, once older
//     than Options.PendingAge. A compaction rewrites the whole log under the
//     lock (up to about MaxBytes), so the commit that triggers it takes
//     longer and other writers wait for it.
//   - A blob stored by a snapshot is kept unreferenced for PendingAge (its
//     index may not be saved yet); a compaction by another process that
//     outlasts that can drop it, and the index then reads that file again.
//   - Journals written in the earlier layout (entries/ and pending/ folders,
//     a file per blob) are not read.
//   - Lines are aligned by edits.LineDiff, the diff edits renders: texts
//     whose alignment exceeds its work budget (typically thousands of lines
//     differing) are aligned coarsely, which can report a conflict a finer
//     alignment would avoid, never a wrong merge.
package changes
