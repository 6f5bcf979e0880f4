// Package edits is whale-ls's text engine for changing files: it finds the
// place a model's "search" text means, applies replacements in memory,
// decodes and restores line endings and encodings, renders unified diffs,
// computes minimal text edits for an editor, and commits new bytes to disk.
//
// What it guarantees:
//   - A replacement lands only on a place the search identifies uniquely at
//     the first matching tier (or on every place with All); it is written over
//     the file's real bytes, never over the model's copy of them.
//   - Matching tolerance is a fixed list of named normalisations, never a
//     similarity score; each tolerant hit is reported as a repair.
//   - Decode followed by Encode with unchanged text gives back the input bytes
//     exactly, for every input Decode accepts; lines an edit did not touch keep
//     their own line ending.
//   - Commit writes every file of a plan or none, as far as the filesystem
//     allows: each file is re-read and compared first, then written through a
//     temporary file, fsync and rename inside an *os.Root.
//
// What it does not do: it knows nothing about LSP, editors or tool envelopes
// (callers map Error codes to their own results); it does not guard against
// writers that bypass it between its final comparison and its rename; and it
// does not detect encodings other than UTF-8, UTF-16 with a byte-order mark
// and GB18030.
package edits
