// Package replay builds an edit corpus from real commits and runs it
// through whale's real tools: it walks a git history (by default the
// project's own), turns each commit's file changes into the tool calls a
// model makes — unified diffs with and without line numbers, "*** Begin
// Patch" envelopes with git's function headings as @@ anchors, edit and
// multi_edit steps — and adds the noise models add to their copy of a file
// (an indentation shift, tabs written as spaces, trailing blanks dropped,
// typographic quotes and dashes written as ASCII, CRLF in the model's text
// or in the file, mixed line endings, a file someone changed after the
// model read it). Each case runs in a fresh workspace folder through a
// session's registry, as `whale-ls call` runs a tool, and ends in one of
// three ways: applied (exactly the commit's bytes), refused (nothing
// written), or wrong (anything else). Variants that must be refused are
// part of the corpus: a change whose lines someone else changed meanwhile,
// and a change sent to another file that holds none of its lines.
//
// What it guarantees: a case is generated only when its wanted bytes
// follow from what the call says — noise that would turn a removed line
// into an added one, or land the copy exactly on another place of the
// file (or on one an earlier multi_edit step writes), is left out, and so
// are file-side blanks and quotes on lines whose pairing an edit's
// alignment could choose differently from git's (a patch's context lines
// say it; an edit's search and replacement do not); so a wrong case is
// always the tools' fault. What it does not do: it replays text files
// under 200 KiB that a commit modified or added, not deletions, renames or
// binary files, and only the first parent of each commit. The history may
// be a work tree's or a bare clone's.
package replay
