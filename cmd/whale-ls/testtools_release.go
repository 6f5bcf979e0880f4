//go:build !whaletest

package main

import (
	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// testTools is empty in a release build; the test binary (go build -tags
// whaletest) has the real ones (testtools.go).
func testTools(catalog.Env) []toolbridge.Tool { return nil }
