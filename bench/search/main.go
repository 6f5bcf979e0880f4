// Command search drives the search package the way the grep and
// search_files tools do, printing every result, so that bench/search/run.sh
// can time it against ripgrep and compare the match sets.
//
// Usage:
//
//	search -root DIR [-i] [-F] PATTERN      matching lines as path:line:text
//	search -root DIR -files GLOB            matching file paths
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/whale-ls/whale-ls/search"
	"github.com/whale-ls/whale-ls/workspace"
)

func main() {
	rootDir := flag.String("root", ".", "folder to search")
	files := flag.Bool("files", false, "search file names with a glob instead of contents")
	icase := flag.Bool("i", false, "case-insensitive")
	fixed := flag.Bool("F", false, "pattern is plain text")
	include := flag.String("include", "", "include globs")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: search -root DIR [-i] [-F] [-include GLOBS] PATTERN | -files GLOB")
		os.Exit(2)
	}
	root, err := os.OpenRoot(*rootDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	ig := workspace.NewIgnorer(root)
	out := bufio.NewWriterSize(os.Stdout, 256<<10)
	defer out.Flush()
	if *files {
		l, err := search.Files(ctx, root, ig, search.FilesRequest{Pattern: flag.Arg(0), MaxResults: 1 << 30})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, p := range l.Paths {
			out.WriteString(p)
			out.WriteByte('\n')
		}
		return
	}
	res, err := search.Grep(ctx, root, ig, search.Request{
		Pattern:         flag.Arg(0),
		CaseInsensitive: *icase,
		FixedStrings:    *fixed,
		Include:         *include,
		MaxResults:      1 << 30,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, f := range res.Files {
		for _, ln := range f.Lines {
			out.WriteString(f.Path)
			out.WriteByte(':')
			out.WriteString(strconv.Itoa(ln.Number))
			out.WriteByte(':')
			out.WriteString(ln.Text)
			out.WriteByte('\n')
		}
	}
}
