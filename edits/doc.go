// Package edits is whale-ls's text engine for changing files: it finds the
// place a model's "search" text means, applies replacements in memory,
// decodes and restores line endings and encodings, renders unified diffs,
// computes minimal text edits for an editor, and commits new bytes to disk.
//
// Matching runs on LF text in tiers of growing tolerance and stops at the
// first tier that finds any candidate:
//
//  1. the exact substring;
//  2. whole lines equal once trailing blanks are ignored; then whole lines
//     equal up to one uniform indentation shift (the replacement is
//     re-indented by the same shift, see below);
//     then whole lines equal once leading and trailing blanks are ignored;
//  3. the same after turning literal \n, \t, \r and \" into real characters;
//  4. the same after removing read_file line-number prefixes ("   12\t"),
//     after mapping typographic look-alikes (curly quotes, dashes, no-break
//     spaces) to ASCII on both sides, and after dropping a final line break
//     the file does not have.
//
// Each tolerance used is reported as a repair (RepairWhitespaceNormalized,
// RepairIndentShifted, …).
//
// What it guarantees:
//   - A replacement lands only where the search matches exactly one place at
//     the first tier that matches at all (or on every place with All); a
//     tolerant match must also be the first occurrence of the bytes it
//     covers, and no more tolerant tier may find another place (the same
//     lines at another indentation do not win over the place whose curly
//     quotes the model wrote as ASCII); the replacement is written over the
//     file's real bytes, never over the model's copy of them.
//   - A patch hunk may also be placed by what its format says besides its
//     text, and only by that: its @@ header's line number chooses among the
//     places of that first tier when one is clearly nearest (every other
//     more than twice as far; RepairLineHintChose), and a "*** Begin Patch"
//     chunk is searched only after the previous chunk of its file and from
//     the first line its @@ anchors match there (RepairAnchorScoped when
//     that region decided); an anchor matching several lines only narrows
//     the search, and of several places after it the first is taken only
//     when it is evidently the one under the anchor (RepairAnchorNearest,
//     see chooseNearAnchor). What stays ambiguous is refused with every
//     candidate's line.
//   - After a tolerant match the replacement is fitted to the file: lines
//     the model kept (a patch's context lines, by their place in the hunk;
//     an edit's lines equal in search and replacement, by alignment) are
//     the file's bytes; on changed lines only the indentation shift the
//     match found is undone, line by line in the file's own style, and
//     after a typography or NFC match only the characters the model changed
//     take its form. Kept lines keep their own line ending in a file with
//     mixed endings, also where equal lines end differently.
//   - Tolerance is a fixed list of named normalisations, never a similarity
//     score.
//   - Decode followed by Encode with unchanged text gives back the input bytes
//     exactly, for every input Decode accepts; lines an edit did not touch keep
//     their own line ending.
//   - A Txn (Locks.Begin) holds every file's locks from the read to the
//     rename and commits every plan or none, as far as the filesystem allows:
//     each file is compared again, written beside its target and synced
//     through the atomicfile package (an unnamed file on Linux, else the fixed
//     staging name .<name>.whale-tmp, which only the lock holder uses), then
//     compared once more and renamed inside an *os.Root, and renames already
//     done are undone if a later one fails.
//
// What it does not do: it knows nothing about LSP, editors or tool envelopes
// (callers map Error codes to their own results and convert Pos columns to
// their position encoding); it does not guard against writers that bypass it
// between its final comparison and its rename; it does not detect encodings
// other than UTF-8, UTF-16 with a byte-order mark and GB18030, except that
// other ASCII-compatible 8-bit text is guessed to be ISO-8859-1 or
// Windows-1252 (an edit of such a file may add only ASCII and characters the
// file already contains, so a wrong guess cannot corrupt it); and its line
// alignment, though exact on ordinary changes, may report a larger changed
// block than necessary when two very large texts differ almost everywhere.
package edits
