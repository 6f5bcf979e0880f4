package web

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"

	"codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
)

// Output formats of Readable.
const (
	FormatMarkdown = "markdown"
	FormatText     = "text"
	FormatHTML     = "html"
)

// Page is the readable part of an HTML page.
type Page struct {
	Title   string
	Byline  string
	Content string
	// Extracted is false when no main content was found and the whole body
	// was converted instead.
	Extracted bool
}

// Readable extracts the main content of an HTML page (navigation, ads and
// footers removed) and renders it as Markdown, plain text or cleaned HTML.
// Links and images are made absolute against pageURL. When no main content
// is found, the whole document is rendered.
func Readable(ctx context.Context, body []byte, pageURL *url.URL, format string) (Page, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return Page{}, fmt.Errorf("parse HTML: %w", err)
	}
	parser := readability.NewParser()
	article, err := parser.ParseDocument(doc, pageURL)
	page := Page{Title: strings.TrimSpace(article.Title()), Byline: strings.TrimSpace(article.Byline())}
	node := article.Node
	if err == nil && node != nil {
		page.Extracted = true
	} else {
		node = bodyOf(doc)
	}
	if page.Title == "" {
		page.Title = titleOf(doc)
	}
	var out bytes.Buffer
	switch format {
	case FormatText:
		if page.Extracted {
			err = article.RenderText(&out)
		} else {
			out.WriteString(textOf(node))
		}
	case FormatHTML:
		err = html.Render(&out, node)
	default:
		var md []byte
		opts := []converter.ConvertOptionFunc{converter.WithContext(ctx)}
		if pageURL != nil {
			opts = append(opts, converter.WithDomain(pageURL.Scheme+"://"+pageURL.Host))
		}
		md, err = htmltomarkdown.ConvertNode(node, opts...)
		out.Write(md)
	}
	if err != nil {
		return page, fmt.Errorf("render %s: %w", format, err)
	}
	page.Content = strings.TrimSpace(out.String())
	return page, nil
}

// bodyOf returns the <body> element, or the document itself.
func bodyOf(doc *html.Node) *html.Node {
	if b := find(doc, "body"); b != nil {
		return b
	}
	return doc
}

// titleOf returns the text of the first <title>.
func titleOf(doc *html.Node) string {
	if t := find(doc, "title"); t != nil {
		return strings.TrimSpace(textOf(t))
	}
	return ""
}

func find(n *html.Node, tag string) *html.Node {
	if n.Type == html.ElementNode && n.Data == tag {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, tag); f != nil {
			return f
		}
	}
	return nil
}

// textOf collects the text below n, skipping scripts and styles, one line
// per block of text.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style" || n.Data == "noscript"):
			return
		case n.Type == html.TextNode:
			if t := strings.TrimSpace(n.Data); t != "" {
				b.WriteString(strings.Join(strings.Fields(t), " "))
				b.WriteString("\n")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
