// Command tokens measures what a tool result costs the model: for each task
// of bench/tokens/tasks (read a 300-line file, read lines 100–160, grep a
// symbol in Go's src, one edit, a failing edit, 200 lines of `go test -v`,
// a folder listing) the bytes and tokens of whale's tool result text — the
// real tools, run through `whale-ls call` — against the same work in the
// result formats of Claude Code's, Codex CLI's and Gemini CLI's own tools
// (tasks/peers.go says where each format comes from).
//
// Tokens are counted with the o200k_base BPE (OpenAI's GPT-4o and later,
// the encoding Codex's models use) through github.com/pkoukk/tiktoken-go,
// its data embedded by github.com/pkoukk/tiktoken-go-loader, so the run
// needs no network. Claude's and Gemini's tokenizers are not public: the
// same BPE stands for them, a common yardstick rather than their bill.
//
// It prints a Markdown table, the README's "What a result costs the model"
// (tasks' TestReadmeTable checks the README's bytes against a fresh run).
// -texts prints every text as well.
//
// Usage:
//
//	go run ./bench/tokens [-whale BIN] [-texts]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/whale-ls/whale-ls/bench/internal/benchserver"
	"github.com/whale-ls/whale-ls/bench/tokens/tasks"
)

// encoding is the BPE the tokens are counted in.
const encoding = "o200k_base"

func main() {
	bin := flag.String("whale", "", "whale-ls binary (default: build it)")
	texts := flag.Bool("texts", false, "print each result text after the table")
	flag.Parse()
	if err := run(*bin, *texts); err != nil {
		fmt.Fprintln(os.Stderr, "bench/tokens:", err)
		os.Exit(1)
	}
}

func run(bin string, texts bool) error {
	work, err := os.MkdirTemp("", "bench-tokens-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin, err = benchserver.Binary(bin, work)
	if err != nil {
		return err
	}
	rows, err := tasks.Run(context.Background(), tasks.Options{Whale: bin, GoSrc: benchserver.GoSrc(), Work: work, Cache: tasks.KeptCache()})
	if err != nil {
		return err
	}
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		return err
	}
	count := func(s string) int { return len(enc.Encode(s, nil, nil)) }

	fmt.Printf("tokens: %s (github.com/pkoukk/tiktoken-go with tiktoken-go-loader); Go %s; cells are bytes / tokens\n\n", encoding, runtime.Version())
	fmt.Println(tasks.Header())
	for _, r := range rows {
		cells := []tasks.Cell{{Bytes: len(r.Whale), Tokens: count(r.Whale)}}
		for _, p := range tasks.Peers {
			cells = append(cells, tasks.Cell{Bytes: len(r.Peers[p]), Tokens: count(r.Peers[p])})
		}
		fmt.Println(tasks.Line(r.Task, cells))
	}
	if texts {
		for _, r := range rows {
			fmt.Printf("\n==== %s\n---- whale\n%s\n", r.Task, r.Whale)
			for _, p := range tasks.Peers {
				fmt.Printf("---- %s\n%s\n", p, r.Peers[p])
			}
		}
	}
	return nil
}
